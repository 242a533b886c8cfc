// Internal: where each rank of a collective sits (device, node, local index, scale-out leaf) and
// which rank forwards hierarchical traffic into each node. Validates the rank placement.
#pragma once

#include <span>
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
  // forwarder(src, node) for every node, indexed by node.
  std::span<const int> forwarders(int src) const {
    return {forwarder_.data() + static_cast<std::size_t>(local[static_cast<std::size_t>(src)]) * static_cast<std::size_t>(nodes_),
            static_cast<std::size_t>(nodes_)};
  }
  int forwarder(int src, int dst_node) const {
    return forwarder_[static_cast<std::size_t>(local[static_cast<std::size_t>(src)]) * static_cast<std::size_t>(nodes_) +
                      static_cast<std::size_t>(dst_node)];
  }
  std::span<const int> ranks_on_node(int n) const { return group(node_ranks_, node_begin_, n); }
  // Ranks under scale-out leaf `l` (preset fabrics; empty otherwise).
  std::span<const int> ranks_on_leaf(int l) const { return group(leaf_ranks_, leaf_begin_, l); }

 private:
  static std::span<const int> group(const std::vector<int>& items, const std::vector<int>& begin, int g) {
    const auto i = static_cast<std::size_t>(g);
    return {items.data() + begin[i], static_cast<std::size_t>(begin[i + 1] - begin[i])};
  }

  // Flat tables, a few allocations per layout (it is built for every full-matrix all-to-all).
  int local_slots_ = 0;           // the largest local index + 1
  int nodes_ = 0;
  std::vector<int> forwarder_;    // [local index * nodes_ + node] -> forwarder(), precomputed
  std::vector<int> node_begin_, node_ranks_;  // ranks of node n, in rank order: [begin[n], begin[n + 1])
  std::vector<int> leaf_begin_, leaf_ranks_;  // likewise per scale-out leaf
};

}  // namespace moesim::topology
