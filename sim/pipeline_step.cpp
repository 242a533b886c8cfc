#include "sim/pipeline_step.h"

#include <algorithm>
#include <limits>

#include "models/dtype.h"
#include "models/layer_ops.h"
#include "topology/collectives.h"

namespace moesim::sim {

InstanceStep::InstanceStep(const models::ModelSpec& model, const PoolLayout& pool, int instance,
                           const topology::Cluster& cluster, const calibration::CostModel& cost,
                           const workloads::RoutingModel& routing)
    : model_(model), cluster_(cluster), runtime_(pool.config.runtime) {
  for (int s = 0; s < pool.config.pipeline_stages; ++s) layouts_.emplace_back(pool, instance, s);
  // Kernels a rank launches per step: its stage's layers (the first stage's, all stages alike up
  // to one layer), once per two-batch micro-batch and per pipeline micro-batch, plus the LM head
  // and sampling. DeepEP's low-latency kernels are a send and a receive kernel per all-to-all.
  const InstanceLayout& first = layouts_.front();
  const topology::AllToAllAlgorithm* a2a = pool.config.comm.all_to_all;
  const int comm = 2 * (a2a != nullptr ? a2a->launches() : 1);  // dispatch and combine
  double per_pass = 2;
  for (int l = first.first_layer(); l < first.end_layer(); ++l) per_pass += models::layer_kernels(model, l, comm);
  const int micro = pool.config.overlap.scheme == OverlapScheme::kTwoBatch ? 2 : 1;
  kernels_ = per_pass * micro * pool.config.pipeline_stages;
  if (pool.config.afd.enabled()) {
    // The ping-pong pipeline runs every layer once per AFD micro-batch on each side.
    kernels_ = per_pass * pool.config.afd.micro_batches;
    afd_ = std::make_unique<AfdStep>(model, pool, instance, cluster, cost, routing);
    return;
  }
  for (const auto& layout : layouts_)
    stages_.push_back(std::make_unique<StepModel>(model, layout, cluster, cost, routing, pool.config.overlap));
  if (pool.config.speculative.enabled())
    draft_ = std::make_unique<SpeculativeDraft>(model, layouts_.back(), cluster, cost, routing);
}

void InstanceStep::settle_load_stats() {
  for (auto& s : stages_) s->settle_load_stats();
}

void InstanceStep::set_load_stats(LoadStats* stats, int instance) {
  if (afd_) afd_->set_load_stats(stats, instance);
  for (auto& s : stages_) s->set_load_stats(stats, instance);
}

void InstanceStep::set_reuse_draws(int draws, bool share) {
  for (auto& s : stages_) s->set_reuse_draws(draws, share);
}

void InstanceStep::set_trace(TraceRecorder* recorder, int pool, int instance) {
  if (afd_) afd_->set_trace(recorder, pool, instance);
  for (auto& s : stages_) s->set_trace(recorder, pool, instance);
}

Duration InstanceStep::rebalance() {
  Duration worst{};
  for (auto& s : stages_) worst = std::max(worst, s->rebalance());
  return worst;
}

Duration InstanceStep::send_ns(const RankBatch* groups, std::size_t count, int from_stage) const {
  const auto& src = layouts_[static_cast<std::size_t>(from_stage)].rank_devices();
  const auto& dst = layouts_[static_cast<std::size_t>(from_stage + 1)].rank_devices();
  const int tp = layouts_.front().attention_tp();
  const double row = static_cast<double>(model_.hidden) * models::bytes_per_element(model_.activation_dtype);
  std::vector<topology::Transfer> transfers;
  for (std::size_t g = 0; g < count; ++g) {
    const std::int64_t tokens = groups[g].tokens();
    for (int j = 0; j < tp; ++j) {
      const std::int64_t share = tokens / tp + (j < tokens % tp ? 1 : 0);
      const auto r = g * static_cast<std::size_t>(tp) + static_cast<std::size_t>(j);
      if (share > 0) transfers.push_back({src[r], dst[r], static_cast<double>(share) * row});
    }
  }
  if (transfers.empty()) return Duration{};
  const auto& fidelity = *layouts_.front().config().comm.fidelity;
  return Duration::from_ns_rounded(topology::point_to_point(cluster_, transfers, fidelity).duration_ns);
}

Duration InstanceStep::prepare(std::span<const RankBatch> batches, Time start, LayerBreakdown& breakdown) {
  pending_ = Pending{batches, RuntimePlan{}, 0, start, true};
  if (!runtime_.graph_everything) {
    // Decode-only steps replay a CUDA graph of the busiest DP rank's batch size (every rank
    // padded to it, as engines with DP attention do); other steps run eagerly.
    int largest = 0, smallest = std::numeric_limits<int>::max(), requests = 0;
    for (const auto& b : batches) {
      const int decodes = static_cast<int>(b.decode_kv_lengths.size());
      if (!b.prefill_chunks.empty()) largest = -1;
      if (largest >= 0) largest = std::max(largest, decodes);
      smallest = std::min(smallest, decodes);
      requests = std::max(requests, static_cast<int>(b.decode_kv_lengths.size() + b.prefill_chunks.size()));
    }
    pending_.plan = plan_step(runtime_, largest, smallest);
    pending_.requests = requests;
    pending_.with_runtime = true;
    // Every rank below the graph's size is padded to it (the busiest one too, when it is not a size).
    if (pending_.plan.graph() && pending_.plan.graph_batch > smallest) {
      padded_.assign(batches.begin(), batches.end());
      for (auto& b : padded_)
        b.padding =
            static_cast<std::int64_t>(pending_.plan.graph_batch - static_cast<int>(b.decode_kv_lengths.size())) *
            b.decode_queries;
      pending_.batches = padded_;
    }
  } else {
    pending_.with_runtime = false;
  }
  // One stage: its own lower bound (the draft and the runtime only add to its time). Otherwise
  // none: execute() runs the whole step.
  pending_.prepared = !afd_ && stages_.size() == 1;
  if (pending_.prepared) return stages_[0]->prepare(pending_.batches, start, breakdown);
  return Duration{};
}

Duration InstanceStep::execute(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown) {
  const Pending p = pending_;
  Duration gpu;
  if (p.prepared) {
    gpu = stages_[0]->execute(step, rng, breakdown);
    if (draft_) {
      const Duration draft = draft_->run(p.batches, step, rng);
      breakdown.draft_ns += static_cast<double>(draft.count_ns());
      gpu += draft;
    }
  } else {
    gpu = gpu_step(p.batches, step, rng, breakdown, p.start);
  }
  if (!p.with_runtime) return gpu;
  const double gpu_ns = static_cast<double>(gpu.count_ns());
  const double ns = runtime_step_ns(runtime_, p.plan, gpu_ns, kernels_, p.requests);
  breakdown.runtime_ns += ns - gpu_ns;
  if (p.plan.graph()) ++breakdown.graph_steps;
  return Duration::from_ns_rounded(ns);
}

Duration InstanceStep::gpu_step(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
                                LayerBreakdown& breakdown, Time start) {
  if (afd_) return afd_->run(batches, step, rng, breakdown, start);
  if (stages_.size() == 1) {
    Duration d = stages_[0]->run(batches, step, rng, breakdown, start);
    if (draft_) {
      const Duration draft = draft_->run(batches, step, rng);
      breakdown.draft_ns += static_cast<double>(draft.count_ns());
      d += draft;
    }
    return d;
  }
  // Split every group's requests into one micro-batch per stage.
  const std::size_t stages = stages_.size(), micro = stages, groups = batches.size();
  split_micro_batches(batches, micro, micro_);
  // Stage times, placed on the clock (for traces) as a pipeline fill: micro-batch m enters stage
  // s when stage s is done with m - 1 and stage s - 1 has sent it m.
  stage_ns_.assign(stages * micro, Duration{});
  send_.assign(stages * micro, Duration{});
  std::vector<Time> stage_free(stages, start);
  for (std::size_t m = 0; m < micro; ++m) {
    const std::span<const RankBatch> mb(micro_.data() + m * groups, groups);
    std::int64_t tokens = 0;
    for (const auto& b : mb) tokens += b.tokens();
    if (tokens == 0) continue;
    Time arrive = start;
    for (std::size_t s = 0; s < stages; ++s) {
      const Time begin = std::max(arrive, stage_free[s]);
      Duration d = stages_[s]->run(mb, step, rng, breakdown, begin);
      if (s + 1 == stages && draft_) {
        const Duration draft = draft_->run(mb, step, rng);
        breakdown.draft_ns += static_cast<double>(draft.count_ns());
        d += draft;
      }
      stage_ns_[s * micro + m] = d;
      stage_free[s] = begin + d;
      if (s + 1 < stages) {
        send_[s * micro + m] = send_ns(mb.data(), groups, static_cast<int>(s));
        breakdown.pipeline_send_ns += static_cast<double>(send_[s * micro + m].count_ns());
      }
      arrive = begin + d + send_[s * micro + m];
    }
  }
  // Steady state: the longest of a micro-batch's trip and a stage's summed work.
  Duration cycle{};
  for (std::size_t m = 0; m < micro; ++m) {
    Duration trip{};
    for (std::size_t s = 0; s < stages; ++s) trip += stage_ns_[s * micro + m] + send_[s * micro + m];
    cycle = std::max(cycle, trip);
  }
  for (std::size_t s = 0; s < stages; ++s) {
    Duration work{};
    for (std::size_t m = 0; m < micro; ++m) work += stage_ns_[s * micro + m];
    cycle = std::max(cycle, work);
  }
  return cycle;
}

}  // namespace moesim::sim
