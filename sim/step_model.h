// StepModel: the duration of one forward step of an instance, layer by layer (DESIGN.md §1, §4).
//
// Every rank runs attention for its own batch (decode tokens and prefill chunks), then each layer's
// MLP: a dense layer runs locally; an MoE layer runs router and shared expert locally, then
// DISPATCH (an all-to-all over the EP group, traffic from the routing counts and placement),
// the grouped GEMM of the rank's local experts, and COMBINE. The all-to-alls synchronise the
// ranks, so each MoE layer ends when its slowest rank does; the step ends with the LM head for
// the tokens that sample. No overlap: every phase is exposed.
//
// Routing is drawn per MoE layer as counts (source rank → expert) from the routing model. Each
// token-expert pair is one message of the dispatch (as in DeepEP's low-latency mode); tokens are
// not deduplicated per destination rank.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/time.h"
#include "topology/cluster.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

enum class Phase { kAttention, kDenseMlp, kSharedExpert, kRouter, kDispatch, kExpertGemm, kCombine };
inline constexpr int kNumPhases = 7;
const char* phase_name(Phase p);

// What one rank runs in a step.
struct RankBatch {
  std::vector<std::int64_t> decode_kv_lengths;           // one per decode token
  std::vector<calibration::PrefillChunk> prefill_chunks;  // one per prefilling request
  std::int64_t sampled_tokens = 0;                        // tokens that need logits
  std::int64_t tokens() const;
};

using PhaseTimes = std::array<double, kNumPhases>;  // nanoseconds

// Per-layer breakdown accumulated over steps: each phase as its slowest rank's time.
struct LayerBreakdown {
  std::vector<PhaseTimes> layer_ns;  // [layer][phase], summed over steps
  double dispatch_bytes = 0;         // summed over MoE layers and steps
  double combine_bytes = 0;
  std::int64_t tokens_routed = 0;    // token-expert pairs dispatched
  std::int64_t tokens_combined = 0;  // token-expert pairs combined
  double lm_head_ns = 0;             // LM head after the last layer, summed over steps
};

class StepModel {
 public:
  StepModel(const models::ModelSpec& model, const Deployment& deployment, const topology::Cluster& cluster,
            const calibration::CostModel& cost, const workloads::RoutingModel& routing);

  // Duration of one step; adds each layer's phases to `breakdown`.
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
               LayerBreakdown& breakdown);

 private:
  struct RankCosts {
    double attention = 0, dense_mlp = 0, shared = 0, router = 0, lm_head = 0;
  };
  RankCosts rank_costs(const RankBatch& b) const;
  void draw_layer_routing(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                          workloads::Rng& rng);

  const models::ModelSpec& model_;
  const Deployment& deployment_;
  const topology::Cluster& cluster_;
  const calibration::CostModel& cost_;
  const workloads::RoutingModel& routing_;
  double dispatch_bytes_per_token_;
  double combine_bytes_per_token_;
  // Scratch, reused across layers and steps.
  std::vector<double> probs_, rank_mass_;
  std::vector<std::int64_t> pairs_;          // [src][dst] token-expert pairs
  std::vector<std::int64_t> expert_counts_;  // [expert] tokens received
  bool probs_cached_ = false;
};

}  // namespace moesim::sim
