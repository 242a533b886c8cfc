#include "topology/rank_layout.h"

#include <string>

namespace moesim::topology {

RankLayout::RankLayout(const Cluster& cluster, const std::vector<int>& rank_device)
    : ranks(static_cast<int>(rank_device.size())) {
  if (ranks > cluster.num_devices())
    throw TopologyError(std::to_string(ranks) + " ranks do not fit on a cluster of " +
                        std::to_string(cluster.num_devices()) + " devices");
  const auto n = static_cast<std::size_t>(cluster.num_nodes());
  by_local_.assign(n, {});
  ranks_of_.assign(n, {});
  std::vector<char> used(static_cast<std::size_t>(cluster.num_devices()), 0);
  for (int r = 0; r < ranks; ++r) {
    const int d = rank_device[static_cast<std::size_t>(r)];
    if (d < 0 || d >= cluster.num_devices())
      throw TopologyError("rank " + std::to_string(r) + " is placed on device " + std::to_string(d) +
                          ", outside the cluster's " + std::to_string(cluster.num_devices()) + " devices");
    if (used[static_cast<std::size_t>(d)]++)
      throw TopologyError("two ranks are placed on device " + std::to_string(d));
    const int nd = cluster.node_of(d), li = cluster.local_index(d);
    device.push_back(d);
    node.push_back(nd);
    local.push_back(li);
    leaf.push_back(cluster.regular() ? cluster.device_links(d).leaf : -1);
    auto& slots = by_local_[static_cast<std::size_t>(nd)];
    if (li >= static_cast<int>(slots.size())) slots.resize(static_cast<std::size_t>(li) + 1, -1);
    slots[static_cast<std::size_t>(li)] = r;
    ranks_of_[static_cast<std::size_t>(nd)].push_back(r);
    if (leaf.back() >= 0) {
      if (leaf.back() >= static_cast<int>(ranks_of_leaf_.size())) ranks_of_leaf_.resize(static_cast<std::size_t>(leaf.back()) + 1);
      ranks_of_leaf_[static_cast<std::size_t>(leaf.back())].push_back(r);
    }
  }
  ranks_of_leaf_.resize(cluster.regular() ? cluster.leaves().size() : 0);
}

int RankLayout::forwarder(int src, int dst_node) const {
  const auto& slots = by_local_[static_cast<std::size_t>(dst_node)];
  const int li = local[static_cast<std::size_t>(src)];
  if (li < static_cast<int>(slots.size()) && slots[static_cast<std::size_t>(li)] >= 0)
    return slots[static_cast<std::size_t>(li)];
  const auto& list = ranks_of_[static_cast<std::size_t>(dst_node)];
  if (list.empty()) return -1;
  return list[static_cast<std::size_t>(li) % list.size()];
}

}  // namespace moesim::topology
