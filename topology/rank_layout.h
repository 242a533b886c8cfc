// Internal: where each rank of a collective sits (device, node, local index, scale-out leaf) and
// which rank forwards hierarchical traffic into each node. Validates the rank placement.
#pragma once

#include <vector>

#include "topology/cluster.h"

namespace moesim::topology {

struct RankLayout {
  RankLayout(const Cluster& cluster, const std::vector<int>& rank_device);

  int ranks = 0;
  std::vector<int> device, node, local, leaf;

  // The rank on `dst_node` that receives `src`'s hierarchical traffic: the rank there with src's
  // local index (same rail), else the (local index mod count)-th rank of that node; -1 if the
  // node has no rank.
  int forwarder(int src, int dst_node) const;
  const std::vector<int>& ranks_on_node(int n) const { return ranks_of_[static_cast<std::size_t>(n)]; }
  // Ranks under scale-out leaf `l` (preset fabrics; empty otherwise).
  const std::vector<int>& ranks_on_leaf(int l) const { return ranks_of_leaf_[static_cast<std::size_t>(l)]; }

 private:
  std::vector<std::vector<int>> by_local_;  // [node][local index] -> rank or -1
  std::vector<std::vector<int>> ranks_of_;  // [node] -> ranks in rank order
  std::vector<std::vector<int>> ranks_of_leaf_;
};

}  // namespace moesim::topology
