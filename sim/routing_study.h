// A routing study: per-layer load imbalance of a routing model under a placement, measured over
// a run of steps the way serving statistics are reported (TensorRT-LLM's EPLB report: each
// layer's imbalance per iteration, averaged). Backs `moesim routing` and the tests that check a
// routing model against measured statistics.
//
// `tokens` are spread evenly over the EP ranks; EPLB places from the popularity of the
// `placement.window_steps` steps before the first measured one (`history`, as deployed) or from
// the first measured step's (`oracle`; sim/placement.h).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/placement.h"
#include "sim/placement_stats.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

struct RoutingStudy {
  int ep = 1;
  int devices_per_node = 8;
  std::int64_t tokens = 8192;   // per step, over all ranks
  int layers = 0;               // 0: every MoE layer
  std::int64_t first_step = 0;  // the first measured step
  std::int64_t steps = 1;       // measured steps
  std::uint64_t seed = 1;       // the counts' stream
  double capacity_factor = 0;   // 0: no capacity limit
  PlacementConfig placement;
};

struct LayerStudy {
  ImbalanceStats mean;  // imbalances and cvs averaged over the steps; dropped summed
  ImbalanceStats last;  // the last step's (hottest rank and expert)
};

// Throws DeploymentError for a placement that does not fit the shape or fewer than one step.
std::vector<LayerStudy> study_routing(const workloads::RoutingModel& routing, const workloads::RoutingShape& shape,
                                      const RoutingStudy& study);

}  // namespace moesim::sim
