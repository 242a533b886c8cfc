#include "sim/layer_breakdown.h"

#include <algorithm>

namespace moesim::sim {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kAttention: return "attention";
    case Phase::kDenseMlp: return "dense_mlp";
    case Phase::kSharedExpert: return "shared_expert";
    case Phase::kRouter: return "router";
    case Phase::kDispatch: return "dispatch";
    case Phase::kExpertGemm: return "expert_gemm";
    case Phase::kCombine: return "combine";
    case Phase::kTpComm: return "tp_comm";
  }
  return "?";
}

void LayerBreakdown::size_for(int layers) {
  const auto n = static_cast<std::size_t>(layers);
  if (layer_ns.size() == n) return;
  layer_ns.assign(n, PhaseTimes{});
  wall_ns.assign(n, 0.0);
  exposed_comm_ns.assign(n, 0.0);
}

void LayerClock::begin(const StreamTimeline& timeline, int ranks) {
  busy_before_.resize(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < busy_before_.size(); ++r) busy_before_[r] = timeline.compute_busy(static_cast<int>(r));
  layer_start_ = 0;
}

void LayerClock::end(int layer, double layer_end, const StreamTimeline& timeline, LayerBreakdown& breakdown) {
  double busy = 0;
  for (std::size_t r = 0; r < busy_before_.size(); ++r) {
    const double now = timeline.compute_busy(static_cast<int>(r));
    busy = std::max(busy, now - busy_before_[r]);
    busy_before_[r] = now;
  }
  const double wall = layer_end - layer_start_;
  breakdown.wall_ns[static_cast<std::size_t>(layer)] += wall;
  breakdown.exposed_comm_ns[static_cast<std::size_t>(layer)] += std::max(0.0, wall - busy);
  layer_start_ = layer_end;
}

}  // namespace moesim::sim
