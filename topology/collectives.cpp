#include "topology/collectives.h"

#include <string>

#include "topology/fidelity.h"
#include "topology/rank_layout.h"

namespace moesim::topology {
namespace {

Stage ring_step(const std::vector<int>& devs, double bytes) {
  Stage s;
  const auto n = devs.size();
  for (std::size_t i = 0; i < n; ++i) s.flows.push_back({devs[i], devs[(i + 1) % n], bytes, 0});
  return s;
}

// Binary tree in heap order over `order`: parent of position i is (i - 1) / 2.
void tree_edges(const std::vector<int>& order, double bytes, Stage& s) {
  for (std::size_t i = 1; i < order.size(); ++i) {
    const int child = order[i], parent = order[(i - 1) / 2];
    s.flows.push_back({child, parent, bytes, 0});  // reduce
    s.flows.push_back({parent, child, bytes, 0});  // broadcast
  }
}

int ceil_log2(std::size_t n) {
  int k = 0;
  while ((std::size_t{1} << k) < n) ++k;
  return k;
}

}  // namespace

std::vector<AlgorithmInfo> collective_algorithms() {
  return {{"ring", "NCCL ring: n-1 steps (2(n-1) for all-reduce) of bytes/n to the next member"},
          {"tree", "all-reduce: NCCL double binary tree, pipelined; all-gather / reduce-scatter: Bruck, log2 n steps"}};
}

CollectiveAlgorithm find_collective_algorithm(std::string_view name) {
  const std::vector<AlgorithmInfo> all = collective_algorithms();
  std::string names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) return static_cast<CollectiveAlgorithm>(i);
    names += (names.empty() ? "" : ", ") + std::string(all[i].name);
  }
  throw TopologyError("unknown collective algorithm '" + std::string(name) + "' (valid: " + names + ")");
}

Schedule collective_schedule(const Cluster& cluster, const std::vector<int>& devs, CollectiveKind kind, double bytes,
                             CollectiveAlgorithm algorithm) {
  RankLayout(cluster, devs);  // validates the placement
  if (!(bytes >= 0)) throw TopologyError("collective size must be non-negative");
  const auto n = devs.size();
  Schedule plan;
  if (n < 2 || bytes == 0) return plan;
  const double block = bytes / static_cast<double>(n);
  if (algorithm == CollectiveAlgorithm::kRing) {
    Stage s = ring_step(devs, block);
    s.repeat = static_cast<int>(n - 1) * (kind == CollectiveKind::kAllReduce ? 2 : 1);
    plan.push_back(std::move(s));
    return plan;
  }
  if (kind == CollectiveKind::kAllReduce) {
    Stage s;
    std::vector<int> second(devs.size());
    for (std::size_t i = 0; i < n; ++i) second[i] = devs[(i + 1) % n];  // leaves of one are inner nodes of the other
    tree_edges(devs, bytes / 2, s);
    tree_edges(second, bytes / 2, s);
    s.latency_hops = 2.0 * ceil_log2(n + 1);
    plan.push_back(std::move(s));
    return plan;
  }
  for (int k = 0; k < ceil_log2(n); ++k) {
    const std::size_t step = std::size_t{1} << k;
    const double blocks = static_cast<double>(std::min(step, n - step));
    Stage s;
    for (std::size_t i = 0; i < n; ++i) s.flows.push_back({devs[i], devs[(i + n - step) % n], blocks * block, 0});
    plan.push_back(std::move(s));
  }
  return plan;
}

CommResult collective(const Cluster& cluster, const std::vector<int>& group_devices, CollectiveKind kind, double bytes,
                      const CollectiveOptions& options) {
  if (options.fidelity == nullptr) throw TopologyError("collective: no network fidelity given");
  return run_schedule(cluster, collective_schedule(cluster, group_devices, kind, bytes, options.algorithm),
                      *options.fidelity);
}

CommResult point_to_point(const Cluster& cluster, const std::vector<Transfer>& transfers, const NetworkFidelity& f) {
  Stage s;
  for (const Transfer& t : transfers) {
    if (t.src_device < 0 || t.src_device >= cluster.num_devices() || t.dst_device < 0 ||
        t.dst_device >= cluster.num_devices())
      throw TopologyError("point-to-point transfer between devices " + std::to_string(t.src_device) + " and " +
                          std::to_string(t.dst_device) + " outside the cluster's " +
                          std::to_string(cluster.num_devices()) + " devices");
    if (!(t.bytes >= 0)) throw TopologyError("point-to-point transfer size must be non-negative");
    s.flows.push_back({t.src_device, t.dst_device, t.bytes, 0});
  }
  return run_schedule(cluster, {s}, f);
}

}  // namespace moesim::topology
