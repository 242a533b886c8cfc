// LayerRouting: one MoE layer's routing for one (micro-)batch, drawn as counts (DESIGN.md §4).
//
// For each source rank, its tokens × top-k assignments are split over the EP ranks by the
// ranks' share of the layer's expert popularity (a multinomial); each destination rank then
// splits what it received over its local experts. Exact in distribution for any per-expert
// popularity (multinomial aggregation), drawn without per-token loops.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/model_spec.h"
#include "sim/deployment.h"
#include "topology/all_to_all.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

class LayerRouting {
 public:
  LayerRouting(const models::ModelSpec& model, const InstanceLayout& deployment, const workloads::RoutingModel& routing);

  // Draws layer `moe_layer` of step `step` for tokens[r] tokens on each rank r.
  void draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, workloads::Rng& rng);

  // Token-expert pairs sent from rank `src` to rank `dst` in the last draw.
  std::int64_t pairs(int src, int dst) const {
    return pairs_[static_cast<std::size_t>(src) * static_cast<std::size_t>(ranks_) + static_cast<std::size_t>(dst)];
  }
  // Tokens received by each local expert of `rank`.
  std::span<const std::int64_t> local_counts(int rank) const;
  std::int64_t total_pairs() const { return total_pairs_; }
  std::int64_t total_received() const { return total_received_; }

  // Bytes on the fabric (pairs that leave their rank) for dispatch and, reversed, combine.
  void traffic(double dispatch_bytes_per_pair, double combine_bytes_per_pair, topology::TrafficMatrix& dispatch,
               topology::TrafficMatrix& combine) const;

 private:
  const models::ModelSpec& model_;
  InstanceLayout deployment_;
  const workloads::RoutingModel& routing_;
  int ranks_;
  std::vector<double> probs_, rank_mass_;
  std::vector<std::int64_t> pairs_, expert_counts_;
  std::int64_t total_pairs_ = 0, total_received_ = 0;
  bool cached_ = false;
};

}  // namespace moesim::sim
