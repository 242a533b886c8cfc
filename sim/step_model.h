// StepModel: the duration of one forward step of an instance, layer by layer, on per-rank
// compute and communication streams (DESIGN.md §1, §4).
//
// Every rank runs attention for its own batch (decode tokens and prefill chunks), then each
// layer's MLP: a dense layer runs locally; an MoE layer runs router and shared expert locally,
// then DISPATCH (an all-to-all over the EP group; traffic from the routing counts and the
// placement), the grouped GEMM of the rank's local experts, and COMBINE. The all-to-alls
// synchronise the ranks, so a rank that is slow in attention holds every rank back. The step
// ends with the LM head for the tokens that sample. How communication and computation overlap
// follows the pool's overlap scheme (sim/overlap.h); ops are placed on a StreamTimeline.
//
// Each token-expert pair is one message of the dispatch (as in DeepEP's low-latency mode).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/layer_routing.h"
#include "sim/load_stats.h"
#include "sim/overlap.h"
#include "sim/rank_costs.h"
#include "sim/step_batch.h"
#include "sim/stream_timeline.h"
#include "sim/time.h"
#include "sim/trace.h"
#include "topology/all_to_all.h"
#include "topology/traffic.h"
#include "topology/cluster.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

enum class Phase { kAttention, kDenseMlp, kSharedExpert, kRouter, kDispatch, kExpertGemm, kCombine };
inline constexpr int kNumPhases = 7;
const char* phase_name(Phase p);

using PhaseTimes = std::array<double, kNumPhases>;  // nanoseconds

// Per-layer breakdown accumulated over steps. Phase times are work: each op's slowest-rank
// duration, summed over micro-batches. Wall time is how long the layer held the step; exposed
// communication is the part of it in which the busiest rank's compute stream sat idle.
struct LayerBreakdown {
  std::vector<PhaseTimes> layer_ns;    // [layer][phase], summed over steps
  std::vector<double> wall_ns;         // [layer]
  std::vector<double> exposed_comm_ns; // [layer]
  double dispatch_bytes = 0;           // on the fabric, summed over MoE layers and steps
  double combine_bytes = 0;
  std::int64_t tokens_routed = 0;      // token-expert pairs dispatched
  std::int64_t tokens_combined = 0;    // token-expert pairs the experts processed
  double lm_head_ns = 0;               // LM head after the last layer, summed over steps
};

class StepModel {
 public:
  StepModel(const models::ModelSpec& model, const InstanceLayout& deployment, const topology::Cluster& cluster,
            const calibration::CostModel& cost, const workloads::RoutingModel& routing, OverlapConfig overlap);

  // Duration of one step starting at `start`; adds each layer's phases to `breakdown`.
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
               LayerBreakdown& breakdown, Time start = Time::zero());
  // Re-places the experts from the load seen since the last call (EPLB rebalancing); returns
  // how long the weight migration blocks the instance.
  Duration rebalance();
  // Reports the ops of the steps `recorder` wants (null: none).
  void set_trace(TraceRecorder* recorder, int pool, int instance);
  // Adds this instance's routing and link loads to `stats` (null: none).
  void set_load_stats(LoadStats* stats, int instance);

 private:
  struct MicroBatch {
    std::vector<RankCosts> costs;       // per rank
    std::vector<std::int64_t> tokens;   // per rank
    std::vector<double> ready;          // per rank: end of this micro-batch's last op
    std::vector<double> scratch;        // per rank
    std::vector<double> gemm_ns;        // per rank: this layer's expert GEMM (drawn in front)
    double combine_ns = 0;              // this layer's combine (drawn in front)
  };
  void split(std::span<const RankBatch> batches);
  void run_dense_layer(MicroBatch& mb, PhaseTimes& phases);
  // The attention half of an MoE layer: attention, router, shared expert (unless overlapped),
  // then dispatch. Returns the dispatch's end.
  double moe_front(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
                   LayerBreakdown& breakdown);
  // The expert half: (shared expert), grouped GEMM, combine.
  void moe_back(MicroBatch& mb, double dispatch_end, PhaseTimes& phases);
  double slow(double compute_ns) const { return compute_ns * compute_slowdown_; }
  double fabric_token_count() const;
  double attention_of(const RankCosts& c) const { return layer_local_ ? c.attention_local : c.attention; }

  const models::ModelSpec& model_;
  InstanceLayout deployment_;
  const topology::Cluster& cluster_;
  const calibration::CostModel& cost_;
  OverlapConfig overlap_;
  double compute_slowdown_ = 1.0;
  double dispatch_bytes_per_token_;
  double combine_bytes_per_token_;
  LayerRouting routing_;
  StreamTimeline timeline_;
  std::vector<MicroBatch> micro_;
  std::vector<RankBatch> halves_;
  topology::AllToAllTraffic traffic_;
  topology::AllToAllOptions dispatch_options_, combine_options_;
  bool combine_mirrors_dispatch_ = false;  // analytic: combine = dispatch reversed (see moe_front)
  std::vector<double> busy_before_, dispatch_end_;
  int layer_ = 0;
  bool layer_local_ = false;  // the current layer has local (windowed) attention
  TraceRecorder* recorder_ = nullptr;
  int trace_pool_ = 0, trace_instance_ = 0;
  LoadStats* load_ = nullptr;
  int load_instance_ = 0;
  std::int64_t step_start_ns_ = 0;
  std::vector<int> reverse_links_;  // for a combine booked as the dispatch reversed
};

}  // namespace moesim::sim
