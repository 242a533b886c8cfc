#include "sim/routing_study.h"

#include <algorithm>
#include <string>

#include "sim/deployment_error.h"
#include "sim/layer_routing.h"
#include "workloads/routing_sampler.h"

namespace moesim::sim {

std::vector<LayerStudy> study_routing(const workloads::RoutingModel& routing, const workloads::RoutingShape& shape,
                                      const RoutingStudy& o) {
  PlacementShape ps;
  ps.experts = shape.experts;
  ps.ep = o.ep;
  ps.redundant = o.placement.redundant;
  ps.devices_per_node = o.devices_per_node;
  ps.expert_groups = shape.expert_groups;
  validate_placement(o.placement, ps);
  if (o.steps < 1) throw DeploymentError("a routing study needs at least one step");

  std::vector<std::int64_t> tokens(static_cast<std::size_t>(o.ep), o.tokens / o.ep);
  for (std::int64_t r = 0; r < o.tokens % o.ep; ++r) ++tokens[static_cast<std::size_t>(r)];
  const int layers = o.layers > 0 ? std::min(o.layers, shape.moe_layers) : shape.moe_layers;
  workloads::RoutingSampler sampler(routing, shape.experts, shape.top_k);
  workloads::Rng rng = workloads::make_stream(o.seed, "routing");
  workloads::LayerCounts counts;
  std::vector<double> probs(static_cast<std::size_t>(shape.experts));
  // As LayerRouting does: with EPLB from history the routing model's clock starts the window
  // before the measured steps.
  const bool history =
      o.placement.eplb() && o.placement.statistics == EplbStatistics::kHistory && !routing.is_step_invariant();
  const std::int64_t first = o.first_step + (history ? o.placement.window_steps : 0);
  const double steps = static_cast<double>(o.steps);

  std::vector<LayerStudy> out(static_cast<std::size_t>(std::max(0, layers)));
  for (int l = 0; l < layers; ++l) {
    if (history)
      window_popularity(routing, l, o.first_step, o.placement.window_steps, probs);
    else
      routing.expert_distribution(l, first, probs);
    const auto placement = place_layer(o.placement, ps, probs);
    const auto targets = placement.routing_targets(o.placement.replica_split);
    LayerStudy& s = out[static_cast<std::size_t>(l)];
    for (std::int64_t t = first; t < first + o.steps; ++t) {
      sampler.draw(l, t, tokens, targets, rng, counts);
      s.last = layer_imbalance(placement, counts.slot_counts, o.capacity_factor);
      s.mean.rank_imbalance += s.last.rank_imbalance / steps;
      s.mean.slot_imbalance += s.last.slot_imbalance / steps;
      s.mean.rank_cv += s.last.rank_cv / steps;
      s.mean.slot_cv += s.last.slot_cv / steps;
      s.mean.dropped += s.last.dropped;
      s.mean.pairs += s.last.pairs;
    }
  }
  return out;
}

}  // namespace moesim::sim
