// The EPLB algorithms behind sim/placement.h (after DeepSeek's eplb.py, github.com/deepseek-ai/EPLB):
// greedy replication by load per replica and greedy balanced packing.
#pragma once

#include <span>
#include <vector>

namespace moesim::sim::eplb {

// Replica counts per item for `slots` >= items.size() slots: every item gets one, then each extra
// slot goes to the item with the highest weight / count (ties: lowest index).
std::vector<int> replicate(std::span<const double> weight, int slots);

// Assigns items to `packs` packs of exactly `capacity` items each (items.size() = packs ×
// capacity): heaviest first, each to the lightest pack that is not full (ties: lowest index).
std::vector<int> balanced_packing(std::span<const double> weight, int packs, int capacity);

// slot_expert for `ranks` × `slots_per_rank` slots: replicate `load` over all slots, then pack.
std::vector<int> place_global(std::span<const double> load, int ranks, int slots_per_rank);

// Hierarchical: `groups` contiguous expert groups packed onto `nodes` nodes by group load (groups
// % nodes == 0), then replication and packing inside each node of ranks / nodes ranks.
std::vector<int> place_hierarchical(std::span<const double> load, int ranks, int slots_per_rank, int nodes, int groups);

}  // namespace moesim::sim::eplb
