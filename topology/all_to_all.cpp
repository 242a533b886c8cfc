#include "topology/all_to_all.h"

#include <numeric>
#include <string>
#include <utility>

#include "topology/a2a_closed_form.h"
#include "topology/a2a_fixed.h"
#include "topology/fidelity.h"
#include "topology/rank_layout.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

void check(const Cluster& cluster, const std::vector<int>& rank_device, const TrafficView& t,
           const AllToAllOptions& o) {
  if (o.fidelity == nullptr) throw TopologyError("all-to-all: no network fidelity given");
  const int n = static_cast<int>(rank_device.size());
  if (!t.pair || t.pair->ranks() != n)
    throw TopologyError("all-to-all: traffic matrix and rank placement disagree on the rank count");
  if (t.expert_or_pair().ranks() != n)
    throw TopologyError("all-to-all: the token-expert matrix has the wrong rank count");
  if (t.has_node() && (t.node->ranks() != n || t.node->nodes() != cluster.num_nodes()))
    throw TopologyError("all-to-all: the node matrix must be ranks x cluster nodes");
  if (!(o.scale >= 0)) throw TopologyError("all-to-all: scale must be non-negative");
  check_network_only(o);
}

}  // namespace

void check_network_only(const AllToAllOptions& o) {
  if (o.algorithm == nullptr) throw TopologyError("all-to-all: no algorithm");
  if (o.network_only && o.algorithm->forwards())
    throw TopologyError(std::string(o.algorithm->name()) +
                        " all-to-all forwards over the scale-up fabric: it cannot send every pair over the network");
}

std::vector<AlgorithmInfo> all_to_all_algorithms() {
  std::vector<AlgorithmInfo> out;
  for (const AllToAllAlgorithm* a : all_to_all_registry()) out.push_back({a->name(), a->description()});
  return out;
}

Schedule all_to_all_schedule(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView t,
                             const AllToAllOptions& o) {
  check(cluster, rank_device, t, o);
  const RankLayout L(cluster, rank_device);
  Stage stage;
  o.algorithm->add_flows(cluster, L, t, o, stage.flows);
  if (o.direction == Direction::kCombine)
    for (Flow& f : stage.flows) std::swap(f.src, f.dst);
  Schedule schedule;
  schedule.push_back(std::move(stage));
  return schedule;
}

CommResult all_to_all(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView traffic,
                      const AllToAllOptions& options) {
  if (options.fidelity == nullptr) throw TopologyError("all-to-all: no network fidelity given");
  if (options.fidelity->closed_form() && cluster.regular()) {
    check(cluster, rank_device, traffic, options);
    return all_to_all_closed_form(cluster, *cluster.route_cache().layout(cluster, rank_device, options.network_only),
                                  traffic, options);
  }
  CommResult r = run_schedule(cluster, all_to_all_schedule(cluster, rank_device, traffic, options), *options.fidelity);
  r.fixed_ns = r.transfer_ns > 0 ? a2a_fixed_ns(cluster.config(), options, static_cast<int>(rank_device.size())) : 0.0;
  r.duration_ns += r.fixed_ns;
  return r;
}

double TrafficMatrix::total_bytes() const { return std::accumulate(bytes_.begin(), bytes_.end(), 0.0); }

double TrafficMatrix::received(int dst) const {
  double sum = 0;
  for (int s = 0; s < ranks_; ++s) sum += at(s, dst);
  return sum;
}

CollectiveCost all_to_all_v_analytic(const Cluster& cluster, const std::vector<int>& rank_device,
                                     const TrafficMatrix& traffic) {
  const CommResult r = all_to_all(cluster, rank_device, traffic);
  CollectiveCost c;
  c.duration_ns = r.duration_ns;
  c.max_scaleup_bytes = r.max_scaleup_bytes;
  c.max_scaleout_bytes = r.max_scaleout_bytes;
  for (std::size_t k = 0; k < rank_device.size(); ++k)
    if (rank_device[k] == r.bottleneck_device) c.bottleneck_rank = static_cast<int>(k);
  return c;
}

}  // namespace moesim::topology
