// Internal: where each rank of a collective sits (device, node, local index, scale-out leaf) and
// which rank forwards hierarchical traffic into each node. Validates the rank placement. Also
// holds what the closed form (topology/a2a_closed_form.h) derives from the placement alone, so
// that a layout kept across calls (AggregatedAllToAll) pays for it once.
#pragma once

#include <span>
#include <vector>

#include "topology/cluster.h"

namespace moesim::topology {

struct RankLayout {
  // `network_only`: the layout an all-to-all sees when every pair crosses the scale-out network
  // (AllToAllOptions::network_only): each rank is then its own domain (node = rank, local index
  // 0); devices, leaves and links are the placement's.
  RankLayout(const Cluster& cluster, const std::vector<int>& rank_device, bool network_only = false);
  bool network_only() const { return network_only_; }

  // A link that bounds traffic on a preset fabric, with what Cluster would look up for it.
  struct BoundingLink {
    int id = -1;          // -1: absent
    double capacity = 0;  // bytes_per_s * efficiency
    LinkClass cls = LinkClass::kScaleUp;
  };

  int ranks = 0;
  std::vector<int> device, node, local, leaf;

  // The rank on `dst_node` that receives `src`'s hierarchical traffic: the rank there with src's
  // local index (same rail), else the (local index mod count)-th rank of that node; -1 if the
  // node has no rank.
  // forwarder(src, node) for every node, indexed by node.
  std::span<const int> forwarders(int src) const {
    return {forwarder_.data() +
                static_cast<std::size_t>(local[static_cast<std::size_t>(src)]) * static_cast<std::size_t>(nodes_),
            static_cast<std::size_t>(nodes_)};
  }
  int forwarder(int src, int dst_node) const {
    return forwarder_[static_cast<std::size_t>(local[static_cast<std::size_t>(src)]) *
                          static_cast<std::size_t>(nodes_) +
                      static_cast<std::size_t>(dst_node)];
  }
  std::span<const int> ranks_on_node(int n) const { return group(node_ranks_, node_begin_, n); }
  // Ranks under scale-out leaf `l` (preset fabrics; empty otherwise).
  std::span<const int> ranks_on_leaf(int l) const { return group(leaf_ranks_, leaf_begin_, l); }

  // Preset fabrics (empty otherwise): each rank's DeviceLinks (scale-up, host, NIC; out, in) and
  // each scale-out leaf's links to the spines (up and down, spine by spine), looked up once.
  std::span<const BoundingLink> rank_links(int rank) const {
    return {rank_links_.data() + static_cast<std::size_t>(rank) * 6, rank_links_.empty() ? 0u : 6u};
  }
  std::span<const BoundingLink> leaf_links(int l) const { return group(leaf_links_, leaf_link_begin_, l); }
  // Whether no two ranks share a bounding link (a device's links are its own; a NIC shared by
  // several devices is not).
  bool exclusive_links() const { return exclusive_links_; }

  // Ranks per node when the placement is "railed": ranks numbered node by node, every node that
  // holds ranks holding the same local indices (so the same count). Then hierarchical forwarding
  // is one to one: rank x forwards exactly the senders with x's local index. 0 otherwise.
  int railed_block() const { return railed_block_; }
  // The nodes that hold ranks, ascending (railed placements: node k of this list holds ranks
  // [k * railed_block(), (k + 1) * railed_block())).
  const std::vector<int>& active_nodes() const { return active_nodes_; }
  // Railed placements: the forwarder into each active node (indexed as active_nodes()) of the
  // senders with local index `local_index`.
  std::span<const int> rail_forwarders(int local_index) const {
    const auto k = active_nodes_.size();
    return {rail_forwarder_.data() + static_cast<std::size_t>(local_index) * k, k};
  }
  // Railed placements: rank x's position in the rail_forwarders() table (local * active + k).
  int rail_slot(int rank) const { return rail_slot_[static_cast<std::size_t>(rank)]; }
  int local_slots() const { return local_slots_; }
  // Railed placements: whether the rail's ranks (its forwarders) all sit under one scale-out
  // leaf, so that its hierarchical traffic never crosses a spine.
  bool rail_on_one_leaf(int local_index) const { return rail_one_leaf_[static_cast<std::size_t>(local_index)] != 0; }
  // Railed placements whose scale-out leaves follow the position in the node block (rail
  // fabrics: position j of every node under one leaf) or the node (no two nodes share a leaf):
  // each block position's leaf class, positions under one leaf sharing a class (all 0 when the
  // leaves follow the nodes). Empty otherwise.
  std::span<const int> rail_leaf_classes() const { return rail_leaf_class_; }
  int rail_leaf_class_count() const { return rail_leaf_classes_; }
  bool rail_leaves_by_position() const { return rail_leaves_by_position_; }

 private:
  void derive_rails();
  void derive_leaf_classes();
  void look_up_links(const Cluster& cluster);
  template <class T>
  static std::span<const T> group(const std::vector<T>& items, const std::vector<int>& begin, int g) {
    const auto i = static_cast<std::size_t>(g);
    return {items.data() + begin[i], static_cast<std::size_t>(begin[i + 1] - begin[i])};
  }

  // Flat tables, a few allocations per layout (it is built for every full-matrix all-to-all).
  bool network_only_ = false;
  int local_slots_ = 0;  // the largest local index + 1
  int nodes_ = 0;
  std::vector<int> forwarder_;                // [local index * nodes_ + node] -> forwarder(), precomputed
  std::vector<int> node_begin_, node_ranks_;  // ranks of node n, in rank order: [begin[n], begin[n + 1])
  std::vector<int> leaf_begin_, leaf_ranks_;  // likewise per scale-out leaf
  int railed_block_ = 0;
  std::vector<int> active_nodes_;
  bool exclusive_links_ = true;
  std::vector<int> rail_forwarder_;   // [local * active nodes + k], railed placements only
  std::vector<int> rail_slot_;        // [rank], railed placements only
  std::vector<char> rail_one_leaf_;   // [local], railed placements only
  std::vector<int> rail_leaf_class_;  // [position in the block], see rail_leaf_classes()
  int rail_leaf_classes_ = 0;
  bool rail_leaves_by_position_ = false;
  std::vector<BoundingLink> rank_links_;  // [rank * 6 + j]
  std::vector<int> leaf_link_begin_;      // leaf_links_ of leaf l: [begin[l], begin[l + 1])
  std::vector<BoundingLink> leaf_links_;  // up, down, up, down, ...
};

}  // namespace moesim::topology
