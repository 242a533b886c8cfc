// Where a step's time goes, layer by layer: the phases of an MoE layer, the per-layer breakdown
// a step model adds to over steps, and LayerClock, which measures each layer's wall time and
// exposed communication on a StreamTimeline as the layer's ops are issued.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/stream_timeline.h"

namespace moesim::sim {

enum class Phase { kAttention, kDenseMlp, kSharedExpert, kRouter, kDispatch, kExpertGemm, kCombine, kTpComm };
inline constexpr int kNumPhases = 8;
const char* phase_name(Phase p);

using PhaseTimes = std::array<double, kNumPhases>;  // nanoseconds

// Per-layer breakdown accumulated over steps. Phase times are work: each op's slowest-rank
// duration, summed over micro-batches. Wall time is how long the layer held the step; exposed
// communication is the part of it in which the busiest rank's compute stream sat idle.
struct LayerBreakdown {
  std::vector<PhaseTimes> layer_ns;     // [layer][phase], summed over steps
  std::vector<double> wall_ns;          // [layer]
  std::vector<double> exposed_comm_ns;  // [layer]
  double dispatch_bytes = 0;            // on the fabric, summed over MoE layers and steps
  double combine_bytes = 0;
  std::int64_t tokens_routed = 0;    // token-expert pairs dispatched
  std::int64_t tokens_combined = 0;  // token-expert pairs the experts processed
  double lm_head_ns = 0;             // LM head after the last layer, summed over steps
  double pipeline_send_ns = 0;       // activations between pipeline stages, summed over steps
  double draft_ns = 0;               // speculative-decoding draft passes, summed over steps
  double runtime_ns = 0;             // the runtime beyond the kernels (launches, host), summed over steps
  std::int64_t graph_steps = 0;      // steps that replayed a CUDA graph (sim/runtime.h)
  // Attention-FFN disaggregation (sim/afd_step.h), summed over steps: each side's compute time
  // summed over its ranks, the steps' GPU time, and the token rows the attention ranks sent to
  // the expert ranks (k pairs and one shared-expert row per token), the rows the expert ranks
  // computed and the rows the N2M returned.
  double afd_attention_busy_ns = 0, afd_expert_busy_ns = 0, afd_span_ns = 0;
  std::int64_t afd_rows_sent = 0, afd_rows_processed = 0, afd_rows_returned = 0;

  // Sizes the per-layer vectors for a model of `layers` layers (zeroed), unless they already are.
  void size_for(int layers);
  // Adds every sum of `other` (of the same model, or empty) to this one's.
  void add(const LayerBreakdown& other);
};

// A step's per-layer wall time and exposed communication, measured on its timeline while the
// layers are issued in order: a layer starts where the one before it ended (the first at 0) and
// ends when its last op issued so far does; its exposed communication is the part of that wall
// time in which the busiest rank's compute stream sat idle (wall minus the largest compute time
// any rank added during the layer).
class LayerClock {
 public:
  // Before the stage's first layer is issued on `timeline`, which serves `ranks` ranks.
  void begin(const StreamTimeline& timeline, int ranks);
  // After `layer`'s ops are issued; the last of them ends at `layer_end`.
  void end(int layer, double layer_end, const StreamTimeline& timeline, LayerBreakdown& breakdown);

 private:
  std::vector<double> busy_before_;  // [rank] compute busy time when the layer began
  double layer_start_ = 0;
};

}  // namespace moesim::sim
