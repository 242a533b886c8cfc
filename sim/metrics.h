// Metrics: what users judge a deployment by (docs/design.md §1): per-request TTFT, TPOT, ITL and
// end-to-end latency with mean/p50/p90/p99, per-GPU throughput, goodput under the SLO, and per
// pool the step statistics and per-layer breakdown.
//
// Percentiles use the nearest-rank definition on the exact samples (ITL samples are weighted:
// every decode token of a step that waited the same gap is one sample of weight 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/memory.h"
#include "sim/deployment_config.h"
#include "sim/energy.h"
#include "sim/load_stats.h"
#include "sim/prefix_cache.h"
#include "sim/step_model.h"
#include "sim/time.h"

namespace moesim::sim {

struct RequestRecord {
  std::int64_t id = 0;
  int instance = -1;  // colocated or decode instance that served it
  int rank = -1;
  std::int64_t arrival_ns = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t first_token_ns = -1;   // -1: never produced
  std::int64_t finish_ns = -1;        // -1: did not finish
  std::int64_t prefill_done_ns = -1;  // disaggregated: when the prefill instance finished the prompt
  std::int64_t preemptions = 0;       // times its KV was dropped and recomputed
  std::int64_t cached_tokens = 0;     // prompt tokens found in the prefix cache (no prefill compute)
  std::int64_t kv_load_ns = 0;        // waited for its prefix to load from a lower KV tier
  std::string rejected;               // non-empty: why it was never admitted
  bool finished() const { return finish_ns >= 0; }
};

struct StepRecord {
  int pool = 0;
  int instance = 0;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
  std::int64_t decode_tokens = 0;  // positions fed by decoding requests (1 + drafts each)
  std::int64_t prefill_tokens = 0;
  std::int64_t running = 0;  // requests admitted on all ranks of the instance
  double power_w = 0;        // mean board power per GPU of the instance over the step (sim/energy.h)
};

struct LatencyStats {
  std::int64_t count = 0;
  double mean_s = 0, p50_s = 0, p90_s = 0, p99_s = 0, max_s = 0;
};

// Weighted nearest-rank percentiles over (value_ns, weight) samples.
LatencyStats latency_stats(std::vector<std::pair<std::int64_t, std::int64_t>> samples);

struct SloTargets {
  double ttft_s = 0;  // 0: no target
  double tpot_s = 0;  // 0: no target
};

// One pool's steps, summed over its instances.
struct PoolResult {
  PoolRole role = PoolRole::kColocated;
  std::string hardware;  // the profile its ranks run on
  int instances = 0;
  int ranks = 0;  // per instance
  // Attention-FFN disaggregation (sim/afd_step.h; 0 ranks: off): each side's ranks per instance,
  // the micro-batches, and each side's utilisation: its compute time over its ranks' share of the
  // steps' GPU time.
  int afd_attention_ranks = 0, afd_expert_ranks = 0, afd_micro_batches = 0;
  double afd_attention_utilisation = 0, afd_expert_utilisation = 0;
  // The pool's GPUs' share of the run's energy and cost (sim/energy.h): their steps' energy
  // (busy_joules over busy_gpu_s GPU-seconds) plus idle power for the rest of the run.
  double busy_joules = 0, busy_gpu_s = 0;
  EnergySummary energy;
  CostSummary cost;
  LayerBreakdown breakdown;
  models::MemoryPlan memory;
  std::int64_t steps = 0;
  double mean_step_ms = 0, mean_tokens_per_step = 0;
  PhaseTimes phase_ns_per_step{};  // per-layer slowest-rank phase times summed over layers, per step
  double lm_head_ns_per_step = 0;
  double exposed_comm_ns_per_step = 0;  // compute idle on the busiest rank, summed over layers
  double kv_peak_utilisation = 0;       // highest fraction of a rank's KV blocks ever in use
  std::int64_t preemptions = 0;
  std::int64_t rebalances = 0;           // EPLB re-placements
  double migration_s = 0;                // time the instances spent moving expert weights
  double pipeline_send_ns_per_step = 0;  // activations sent between pipeline stages
  double draft_ns_per_step = 0;          // speculative decoding: draft passes
  double runtime_ns_per_step = 0;        // launches and host time beyond the kernels (sim/runtime.h)
  // The steady decode state, as a fixed-batch benchmark measures it: the decode-only steps (no
  // prompt work) whose running requests are at least 90 % of the most any decode-only step ran.
  // Ramp-up, admission and drain steps are left out.
  std::int64_t steady_steps = 0;
  double steady_step_ms = 0;           // their mean duration
  double steady_tokens_per_step = 0;   // decode positions fed per step per instance
  double steady_tokens_per_gpu_s = 0;  // those positions per second per GPU (1 + drafts each
                                       // under speculative decoding: positions, not output tokens)
  double graph_step_share = 0;         // share of steps that replayed a CUDA graph
  std::int64_t drafts_proposed = 0;    // speculative decoding: draft tokens verified ...
  std::int64_t drafts_accepted = 0;    // ... and accepted
  double acceptance_rate() const {
    return drafts_proposed > 0 ? static_cast<double>(drafts_accepted) / static_cast<double>(drafts_proposed) : 0.0;
  }
  LoadStats load;                               // expert, rank-over-time and link loads (sim/load_stats.h)
  std::vector<PrefixCacheStats> prefix_caches;  // per instance, with prefix caches (sim/prefix_cache.h)
};

struct Summary {
  std::int64_t requests = 0, completed = 0, rejected = 0, preempted = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  int gpus = 0;
  double makespan_s = 0;  // first arrival to last completion
  LatencyStats ttft, tpot, itl, e2e;
  double output_tokens_per_gpu_s = 0, input_tokens_per_gpu_s = 0;
  // Requests meeting every SLO target, per second of makespan (goodput), and their share.
  double goodput_requests_per_s = 0, slo_attainment = 0;
  EnergySummary energy;                          // sim/energy.h; not known when the hardware profile gives no power
  CostSummary cost;                              // not priced without a GPU-hour price
  std::optional<PrefixCacheStats> prefix_cache;  // the entry pool's caches, when it has them
};

Summary summarize(const std::vector<RequestRecord>& requests,
                  const std::vector<std::pair<std::int64_t, std::int64_t>>& itl_samples, int gpus, SloTargets slo);
// Fills the per-step statistics of `pool` from its steps.
void summarize_pool(const std::vector<StepRecord>& steps, int pool_index, PoolResult& pool);

}  // namespace moesim::sim
