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

// add() sums every field: one added to LayerBreakdown must be added there (and counted here).
static_assert(sizeof(LayerBreakdown) == 3 * sizeof(std::vector<double>) + 9 * sizeof(double) + 6 * sizeof(std::int64_t),
              "LayerBreakdown changed: sum the new field in LayerBreakdown::add");

void LayerBreakdown::add(const LayerBreakdown& o) {
  if (!o.layer_ns.empty()) {
    size_for(static_cast<int>(o.layer_ns.size()));
    for (std::size_t l = 0; l < o.layer_ns.size(); ++l) {
      for (int p = 0; p < kNumPhases; ++p)
        layer_ns[l][static_cast<std::size_t>(p)] += o.layer_ns[l][static_cast<std::size_t>(p)];
      wall_ns[l] += o.wall_ns[l];
      exposed_comm_ns[l] += o.exposed_comm_ns[l];
    }
  }
  dispatch_bytes += o.dispatch_bytes;
  combine_bytes += o.combine_bytes;
  tokens_routed += o.tokens_routed;
  tokens_combined += o.tokens_combined;
  lm_head_ns += o.lm_head_ns;
  pipeline_send_ns += o.pipeline_send_ns;
  draft_ns += o.draft_ns;
  runtime_ns += o.runtime_ns;
  graph_steps += o.graph_steps;
  afd_attention_busy_ns += o.afd_attention_busy_ns;
  afd_expert_busy_ns += o.afd_expert_busy_ns;
  afd_span_ns += o.afd_span_ns;
  afd_rows_sent += o.afd_rows_sent;
  afd_rows_processed += o.afd_rows_processed;
  afd_rows_returned += o.afd_rows_returned;
}

void LayerClock::begin(const StreamTimeline& timeline, int ranks) {
  busy_before_.resize(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < busy_before_.size(); ++r) busy_before_[r] = timeline.compute_busy(static_cast<int>(r));
  layer_start_ = 0;
}

void LayerClock::end(int layer, double layer_end, const StreamTimeline& timeline, LayerBreakdown& breakdown) {
  // The largest busy time added, in four independent lanes (as sim/lane_max.h): the same value.
  const std::span<const double> now = timeline.compute_busy();
  const std::size_t n = std::min(now.size(), busy_before_.size());
  double lane[4] = {0, 0, 0, 0};
  std::size_t r = 0;
  for (; r + 4 <= n; r += 4)
    for (std::size_t k = 0; k < 4; ++k) {
      lane[k] = std::max(lane[k], now[r + k] - busy_before_[r + k]);
      busy_before_[r + k] = now[r + k];
    }
  for (; r < n; ++r) {
    lane[0] = std::max(lane[0], now[r] - busy_before_[r]);
    busy_before_[r] = now[r];
  }
  const double busy = std::max(std::max(lane[0], lane[1]), std::max(lane[2], lane[3]));
  const double wall = layer_end - layer_start_;
  breakdown.wall_ns[static_cast<std::size_t>(layer)] += wall;
  breakdown.exposed_comm_ns[static_cast<std::size_t>(layer)] += std::max(0.0, wall - busy);
  layer_start_ = layer_end;
}

}  // namespace moesim::sim
