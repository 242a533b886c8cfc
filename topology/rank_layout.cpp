#include "topology/rank_layout.h"

#include <algorithm>
#include <string>

namespace moesim::topology {
namespace {

// Counting sort of the ranks by group: begin[g] .. begin[g + 1] index `items` (rank order kept).
void bucket(const std::vector<int>& group_of, int groups, std::vector<int>& begin, std::vector<int>& items) {
  begin.assign(static_cast<std::size_t>(groups) + 1, 0);
  for (const int g : group_of)
    if (g >= 0 && g < groups) ++begin[static_cast<std::size_t>(g) + 1];
  for (std::size_t g = 0; g < static_cast<std::size_t>(groups); ++g) begin[g + 1] += begin[g];
  items.resize(static_cast<std::size_t>(begin.back()));
  std::vector<int> next(begin.begin(), begin.end() - 1);
  for (std::size_t r = 0; r < group_of.size(); ++r)
    if (group_of[r] >= 0 && group_of[r] < groups)
      items[static_cast<std::size_t>(next[static_cast<std::size_t>(group_of[r])]++)] = static_cast<int>(r);
}

}  // namespace

RankLayout::RankLayout(const Cluster& cluster, const std::vector<int>& rank_device, bool network_only)
    : ranks(static_cast<int>(rank_device.size())), network_only_(network_only) {
  if (ranks > cluster.num_devices())
    throw TopologyError(std::to_string(ranks) + " ranks do not fit on a cluster of " +
                        std::to_string(cluster.num_devices()) + " devices");
  const int nodes = network_only ? ranks : cluster.num_nodes();
  const auto n = static_cast<std::size_t>(ranks);
  device.resize(n), node.resize(n), local.resize(n), leaf.resize(n);
  std::vector<char> used(static_cast<std::size_t>(cluster.num_devices()), 0);
  for (int r = 0; r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int d = rank_device[i];
    if (d < 0 || d >= cluster.num_devices())
      throw TopologyError("rank " + std::to_string(r) + " is placed on device " + std::to_string(d) +
                          ", outside the cluster's " + std::to_string(cluster.num_devices()) + " devices");
    if (used[static_cast<std::size_t>(d)]++) throw TopologyError("two ranks are placed on device " + std::to_string(d));
    device[i] = d;
    node[i] = network_only ? r : cluster.node_of(d);
    local[i] = network_only ? 0 : cluster.local_index(d);
    leaf[i] = cluster.regular() ? cluster.device_links(d).leaf : -1;
    local_slots_ = std::max(local_slots_, local[i] + 1);
  }
  bucket(node, nodes, node_begin_, node_ranks_);
  bucket(leaf, cluster.regular() ? static_cast<int>(cluster.leaves().size()) : 0, leaf_begin_, leaf_ranks_);
  // forwarder(src, node) depends on src's local index only: the rank there with that local index
  // (same rail), else the (local index mod count)-th rank of that node; -1 if it has no rank.
  nodes_ = nodes;
  const auto slots = static_cast<std::size_t>(local_slots_), nn = static_cast<std::size_t>(nodes);
  forwarder_.assign(slots * nn, -2);
  for (std::size_t i = 0; i < n; ++i)
    forwarder_[static_cast<std::size_t>(local[i]) * nn + static_cast<std::size_t>(node[i])] = static_cast<int>(i);
  for (std::size_t li = 0; li < slots; ++li)
    for (std::size_t b = 0; b < nn; ++b) {
      int& f = forwarder_[li * nn + b];
      if (f != -2) continue;
      const std::span<const int> list = ranks_on_node(static_cast<int>(b));
      f = list.empty() ? -1 : list[li % list.size()];
    }
  derive_rails();
  if (cluster.regular()) look_up_links(cluster);
}

void RankLayout::look_up_links(const Cluster& cluster) {
  auto bounding = [&](int id) {
    BoundingLink b;
    b.id = id;
    if (id >= 0) {
      const LinkProps& p = cluster.link_props(id);
      b.capacity = p.bytes_per_s * p.efficiency;
      b.cls = p.cls;
    }
    return b;
  };
  rank_links_.reserve(device.size() * 6);
  for (const int d : device) {
    const DeviceLinks& dl = cluster.device_links(d);
    for (const int id : {dl.scaleup_out, dl.scaleup_in, dl.host_out, dl.host_in, dl.nic_out, dl.nic_in})
      rank_links_.push_back(bounding(id));
  }
  {
    std::vector<int> ids;
    for (const auto& b : rank_links_)
      if (b.id >= 0) ids.push_back(b.id);
    std::sort(ids.begin(), ids.end());
    exclusive_links_ = std::adjacent_find(ids.begin(), ids.end()) == ids.end();
  }
  leaf_link_begin_.push_back(0);
  for (const LeafLinks& ll : cluster.leaves()) {
    for (std::size_t s = 0; s < ll.up.size(); ++s) {
      leaf_links_.push_back(bounding(ll.up[s]));
      leaf_links_.push_back(bounding(ll.down[s]));
    }
    leaf_link_begin_.push_back(static_cast<int>(leaf_links_.size()));
  }
}

void RankLayout::derive_rails() {
  const auto nn = static_cast<std::size_t>(nodes_), slots = static_cast<std::size_t>(local_slots_);
  for (std::size_t b = 0; b < nn; ++b)
    if (node_begin_[b + 1] > node_begin_[b]) active_nodes_.push_back(static_cast<int>(b));
  const std::size_t K = active_nodes_.size();
  auto forwarder_into = [&](std::size_t li, std::size_t k) {
    return forwarder_[li * nn + static_cast<std::size_t>(active_nodes_[k])];
  };
  bool railed = ranks > 0 && std::is_sorted(node.begin(), node.end());
  std::vector<char> used(slots, 0);
  for (const int li : local) used[static_cast<std::size_t>(li)] = 1;
  // Railed: every active node has a rank at every local index in use (none falls back).
  for (std::size_t li = 0; li < slots && railed; ++li)
    for (std::size_t k = 0; k < K && railed && used[li]; ++k)
      railed = local[static_cast<std::size_t>(forwarder_into(li, k))] == static_cast<int>(li);
  if (!railed) return;
  railed_block_ = ranks / static_cast<int>(K);
  rail_forwarder_.resize(slots * K);
  rail_one_leaf_.assign(slots, 1);
  for (std::size_t li = 0; li < slots; ++li)
    for (std::size_t k = 0; k < K; ++k) {
      const int f = forwarder_into(li, k);
      rail_forwarder_[li * K + k] = f;
      const int first = rail_forwarder_[li * K];
      if (leaf[static_cast<std::size_t>(f)] != leaf[static_cast<std::size_t>(first)]) rail_one_leaf_[li] = 0;
    }
  rail_slot_.resize(static_cast<std::size_t>(ranks));
  for (std::size_t k = 0; k < K; ++k)
    for (const int x : ranks_on_node(active_nodes_[k])) {
      const auto xi = static_cast<std::size_t>(x);
      rail_slot_[xi] = local[xi] * static_cast<int>(K) + static_cast<int>(k);
    }
  derive_leaf_classes();
}

void RankLayout::derive_leaf_classes() {
  const int g = railed_block_;
  const auto G = static_cast<std::size_t>(g);
  bool by_position = true;
  for (std::size_t j = 0; j < G; ++j)
    if (leaf[j] < 0) return;  // no scale-out leaves: the general paths
  for (int x = g; x < ranks && by_position; ++x)
    by_position = leaf[static_cast<std::size_t>(x)] == leaf[static_cast<std::size_t>(x % g)];
  if (!by_position) {  // by node: no leaf under two node blocks
    std::vector<int> owner(leaf_begin_.empty() ? 0 : leaf_begin_.size() - 1, -1);
    for (int x = 0; x < ranks; ++x) {
      const int l = leaf[static_cast<std::size_t>(x)];
      if (l < 0 || static_cast<std::size_t>(l) >= owner.size()) return;
      int& o = owner[static_cast<std::size_t>(l)];
      if (o >= 0 && o != x / g) return;
      o = x / g;
    }
    rail_leaf_class_.assign(G, 0);
    rail_leaf_classes_ = 1;
    return;
  }
  rail_leaves_by_position_ = true;
  rail_leaf_class_.resize(G);
  rail_leaf_classes_ = 1;
  for (std::size_t j = 0; j < G; ++j) {
    rail_leaf_class_[j] = static_cast<int>(j);
    for (std::size_t i = 0; i < j; ++i)
      if (leaf[i] == leaf[j]) {
        rail_leaf_class_[j] = rail_leaf_class_[i];
        break;
      }
    rail_leaf_classes_ = std::max(rail_leaf_classes_, rail_leaf_class_[j] + 1);
  }
}

}  // namespace moesim::topology
