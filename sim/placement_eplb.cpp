#include "sim/placement_eplb.h"

#include <algorithm>
#include <numeric>

#include "sim/check.h"
#include "sim/deployment_error.h"

namespace moesim::sim::eplb {

std::vector<int> replicate(std::span<const double> weight, int slots) {
  std::vector<int> count(weight.size(), 1);
  for (int extra = slots - static_cast<int>(weight.size()); extra > 0; --extra) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < weight.size(); ++i)
      if (weight[i] * count[best] > weight[best] * count[i]) best = i;  // weight/count, no division
    ++count[best];
  }
  return count;
}

std::vector<int> balanced_packing(std::span<const double> weight, int packs, int capacity) {
  std::vector<std::size_t> order(weight.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weight[a] > weight[b]; });
  std::vector<double> load(static_cast<std::size_t>(packs), 0.0);
  std::vector<int> used(static_cast<std::size_t>(packs), 0), pack(weight.size(), -1);
  for (std::size_t i : order) {
    int best = -1;
    for (int p = 0; p < packs; ++p)
      if (used[static_cast<std::size_t>(p)] < capacity &&
          (best < 0 || load[static_cast<std::size_t>(p)] < load[static_cast<std::size_t>(best)]))
        best = p;
    if (best < 0) throw InvariantError("eplb: more items than pack capacity");
    pack[i] = best;
    load[static_cast<std::size_t>(best)] += weight[i];
    ++used[static_cast<std::size_t>(best)];
  }
  return pack;
}

namespace {

// Places `experts` (ids, with their loads) on `ranks` consecutive ranks starting at first_rank.
void place_block(std::span<const int> experts, std::span<const double> load, int first_rank, int ranks,
                 int slots_per_rank, std::vector<int>& slot_expert) {
  std::vector<double> w(experts.size());
  for (std::size_t i = 0; i < experts.size(); ++i) w[i] = load[static_cast<std::size_t>(experts[i])];
  const auto count = replicate(w, ranks * slots_per_rank);
  std::vector<int> replica_expert;
  std::vector<double> replica_w;
  for (std::size_t i = 0; i < experts.size(); ++i)
    for (int c = 0; c < count[i]; ++c) {
      replica_expert.push_back(experts[i]);
      replica_w.push_back(w[i] / count[i]);
    }
  const auto pack = balanced_packing(replica_w, ranks, slots_per_rank);
  std::vector<int> next(static_cast<std::size_t>(ranks), 0);
  for (std::size_t i = 0; i < pack.size(); ++i) {
    const int r = first_rank + pack[i];
    slot_expert[static_cast<std::size_t>(r * slots_per_rank + next[static_cast<std::size_t>(pack[i])]++)] =
        replica_expert[i];
  }
}

}  // namespace

std::vector<int> place_global(std::span<const double> load, int ranks, int slots_per_rank) {
  std::vector<int> experts(load.size());
  std::iota(experts.begin(), experts.end(), 0);
  std::vector<int> slot_expert(static_cast<std::size_t>(ranks * slots_per_rank), -1);
  place_block(experts, load, 0, ranks, slots_per_rank, slot_expert);
  return slot_expert;
}

std::vector<int> place_hierarchical(std::span<const double> load, int ranks, int slots_per_rank, int nodes,
                                    int groups) {
  const int E = static_cast<int>(load.size());
  if (nodes < 1 || groups % nodes != 0 || E % groups != 0 || ranks % nodes != 0)
    throw DeploymentError("eplb-hierarchical needs groups divisible by nodes and experts by groups");
  const int group_size = E / groups;
  std::vector<double> group_load(static_cast<std::size_t>(groups), 0.0);
  for (int e = 0; e < E; ++e) group_load[static_cast<std::size_t>(e / group_size)] += load[static_cast<std::size_t>(e)];
  const auto node_of_group = balanced_packing(group_load, nodes, groups / nodes);
  std::vector<int> slot_expert(static_cast<std::size_t>(ranks * slots_per_rank), -1);
  const int ranks_per_node = ranks / nodes;
  for (int n = 0; n < nodes; ++n) {
    std::vector<int> experts;
    for (int g = 0; g < groups; ++g)
      if (node_of_group[static_cast<std::size_t>(g)] == n)
        for (int e = g * group_size; e < (g + 1) * group_size; ++e) experts.push_back(e);
    if (static_cast<int>(experts.size()) > ranks_per_node * slots_per_rank)
      throw DeploymentError("eplb-hierarchical: a node's experts do not fit its slots");
    place_block(experts, load, n * ranks_per_node, ranks_per_node, slots_per_rank, slot_expert);
  }
  return slot_expert;
}

}  // namespace moesim::sim::eplb
