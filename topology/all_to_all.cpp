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
  bool known = false;
  std::string names;
  for (const auto& a : all_to_all_algorithms()) {
    known = known || a.name == o.algorithm;
    names += (names.empty() ? "" : ", ") + std::string(a.name);
  }
  if (!known) throw TopologyError("unknown all-to-all algorithm '" + o.algorithm + "' (valid: " + names + ")");
  find_fidelity(o.fidelity);
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

void add(std::vector<Flow>& flows, int src, int dst, double bytes, double messages = 0, bool network = false) {
  if (bytes > 0 && src != dst) flows.push_back({src, dst, bytes, messages, network});
}

}  // namespace

void check_network_only(const AllToAllOptions& o) {
  if (o.network_only && o.algorithm == "hierarchical")
    throw TopologyError(
        "hierarchical all-to-all forwards over the scale-up fabric: it cannot send every pair over the network");
}

std::vector<AlgorithmInfo> all_to_all_algorithms() {
  return {{"direct", "every rank sends to every rank on the shortest route, once per destination rank"},
          {"hierarchical", "DeepEP normal: network hop once per node to the same-rail rank, then NVLink fan-out"},
          {"low-latency", "DeepEP low-latency: one message per token-expert pair, RDMA or NVLink direct"}};
}

Schedule all_to_all_schedule(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView t,
                             const AllToAllOptions& o) {
  check(cluster, rank_device, t, o);
  const RankLayout L(cluster, rank_device);
  const int n = L.ranks;
  const auto dev = [&](int r) { return L.device[static_cast<std::size_t>(r)]; };
  Stage stage;
  if (o.algorithm == "hierarchical") {
    const int nodes = cluster.num_nodes();
    std::vector<double> nvlink(static_cast<std::size_t>(n) * n, 0.0), to_node(static_cast<std::size_t>(nodes));
    for (int s = 0; s < n; ++s) {
      const int ns = L.node[static_cast<std::size_t>(s)];
      std::fill(to_node.begin(), to_node.end(), 0.0);
      for (int d = 0; d < n; ++d) {
        const double b = t.pair->at(s, d) * o.scale;
        if (b <= 0 || d == s) continue;
        const int nd = L.node[static_cast<std::size_t>(d)];
        to_node[static_cast<std::size_t>(nd)] += b;
        const int from = nd == ns ? s : L.forwarder(s, nd);
        nvlink[static_cast<std::size_t>(from) * n + d] += b;
      }
      for (int b = 0; b < nodes; ++b) {
        if (b == ns) continue;
        const double w = !t.has_node() ? to_node[static_cast<std::size_t>(b)] : t.node->at(s, b) * o.scale;
        if (w <= 0) continue;
        const int f = L.forwarder(s, b);
        if (f < 0)
          throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
        add(stage.flows, dev(s), dev(f), w);
      }
    }
    for (int f = 0; f < n; ++f)
      for (int d = 0; d < n; ++d) add(stage.flows, dev(f), dev(d), nvlink[static_cast<std::size_t>(f) * n + d]);
  } else {
    const bool ll = o.algorithm == "low-latency";
    const TrafficMatrix& m = ll ? t.expert_or_pair() : *t.pair;
    stage.flows.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        const double b = m.at(s, d) * o.scale;
        if (b <= 0 || s == d) continue;
        const double msgs = !ll ? 0.0 : t.message_bytes > 0 ? b / t.message_bytes : 1.0;
        add(stage.flows, dev(s), dev(d), b, msgs, o.network_only);
      }
  }
  if (o.direction == Direction::kCombine)
    for (Flow& f : stage.flows) std::swap(f.src, f.dst);
  Schedule schedule;
  schedule.push_back(std::move(stage));
  return schedule;
}

CommResult all_to_all(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView traffic,
                      const AllToAllOptions& options) {
  if (options.fidelity == "analytic" && cluster.regular()) {
    check(cluster, rank_device, traffic, options);
    return all_to_all_closed_form(cluster, *cluster.route_cache().layout(cluster, rank_device, options.network_only),
                                  traffic, options);
  }
  CommResult r = run_schedule(cluster, all_to_all_schedule(cluster, rank_device, traffic, options),
                              find_fidelity(options.fidelity));
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
