#include "sim/fixed_batch.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "sim/deployment.h"
#include "sim/pipeline_step.h"
#include "workloads/routing_model.h"

namespace moesim::sim {
namespace {

// One attention group's batch under the spec.
RankBatch group_batch(const FixedBatchSpec& spec, const PoolConfig& pool) {
  RankBatch b;
  if (spec.sequences > 0) {
    const int queries = pool.speculative.enabled() ? 1 + pool.speculative.tokens : 1;
    b.decode_kv_lengths.assign(static_cast<std::size_t>(spec.sequences), spec.kv);
    b.decode_queries = queries;
    b.sampled_tokens = static_cast<std::int64_t>(spec.sequences) * queries;
  }
  if (spec.prefill_tokens > 0) {
    for (std::int64_t left = spec.prefill_tokens; left > 0;) {
      const std::int64_t n = std::min(left, spec.prompt);
      b.prefill_chunks.push_back({0, n});
      ++b.sampled_tokens;  // a prompt's last token samples its first output token
      left -= n;
    }
  }
  return b;
}

}  // namespace

FixedBatchResult run_fixed_batch(const SimulationConfig& c, const FixedBatchSpec& spec) {
  if (spec.steps < 1 || spec.warmup_steps < 0) throw DeploymentError("fixed batch: steps must be >= 1");
  if (spec.sequences <= 0 && spec.prefill_tokens <= 0)
    throw DeploymentError("fixed batch: neither decode sequences nor prefill tokens given");
  if (spec.sequences > 0 && spec.kv < 1) throw DeploymentError("fixed batch: decode KV length must be >= 1");
  if (spec.prefill_tokens > 0 && spec.prompt < 1) throw DeploymentError("fixed batch: prompt length must be >= 1");
  const topology::Cluster cluster = c.fabric ? *c.fabric : topology::Cluster(c.cluster);
  const Deployment deployment(c.deployment, c.model, c.hardware, cluster);
  const PoolLayout* pool = nullptr;
  for (const auto& p : deployment.pools())
    if (p.config.role == spec.pool) pool = &p;
  if (pool == nullptr)
    throw DeploymentError(std::string("fixed batch: the deployment has no ") + to_string(spec.pool) + " pool");
  const auto cost = calibration::make_cost_model(c.cost_model, pool->hardware);
  // The same streams a serving run of this scenario and seed uses for the pool's first instance.
  const auto routing = workloads::make_routing_model(c.routing, workloads::routing_shape(c.model),
                                                     workloads::make_stream(c.seed, "routing-model")());
  workloads::Rng rng = workloads::make_stream(c.seed, std::string("routing.") + to_string(pool->config.role) + ".0");
  InstanceStep step(c.model, *pool, 0, cluster, *cost, *routing);
  step.set_reuse_draws(c.routing.reuse_draws, c.routing.share_draws);

  const int groups = pool->config.attention_dp;
  const std::vector<RankBatch> batches(static_cast<std::size_t>(groups), group_batch(spec, pool->config));
  LayerBreakdown warm, measured;
  Time now = Time::zero();
  std::int64_t index = 0;
  for (int i = 0; i < spec.warmup_steps; ++i) now = now + step.run(batches, index++, rng, warm, now);
  double total_ns = 0;
  for (int i = 0; i < spec.steps; ++i) {
    const Duration d = step.run(batches, index++, rng, measured, now);
    total_ns += static_cast<double>(d.count_ns());
    now = now + d;
  }

  FixedBatchResult r;
  const double steps = spec.steps;
  r.step_ms = total_ns / steps * 1e-6;
  const double ranks = pool->config.ranks;
  r.tokens_per_step = static_cast<double>(batches.front().tokens()) * groups / ranks;
  for (std::size_t l = 0; l < measured.layer_ns.size(); ++l) {
    for (std::size_t p = 0; p < r.phase_ms.size(); ++p) r.phase_ms[p] += measured.layer_ns[l][p] / steps * 1e-6;
    r.exposed_comm_ms += measured.exposed_comm_ns[l] / steps * 1e-6;
  }
  r.lm_head_ms = measured.lm_head_ns / steps * 1e-6;
  r.runtime_ms = measured.runtime_ns / steps * 1e-6;
  return r;
}

}  // namespace moesim::sim
