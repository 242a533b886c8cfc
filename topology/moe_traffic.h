// Expected MoE dispatch traffic (in tokens) for routing that is uniform over experts, optionally
// group-limited (DeepSeek-V3 / DeepEP node-limited routing), with experts placed contiguously over
// the EP ranks (rank r holds experts [r E/R, (r+1) E/R)). Used by `moesim comm` and by the DeepEP
// calibration; the simulator's drawn routing comes from workloads/ instead.
//
// Model (docs/topology.md, "Node-limited routing"): experts form `groups` contiguous groups; a
// token picks `top_groups` of them uniformly at random and takes top_k experts inside them. When
// the token must choose (top_groups < groups) each chosen group holds its best expert, so it gets
// at least one; the other top_k - top_groups experts fall uniformly on the chosen groups' other
// experts. Without a group limit the top_k experts are uniform over all experts. The result's
// entries are expectations: pair = P(token reaches the rank) x tokens, node = P(reaches the
// node) x tokens, expert = top_k x (rank's experts / experts) x tokens.
#pragma once

#include <vector>

#include "topology/cluster.h"
#include "topology/traffic.h"

namespace moesim::topology {

struct MoeRouting {
  int tokens_per_rank = 0;
  int experts = 0;
  int top_k = 0;
  int groups = 0;      // 0: no group limit
  int top_groups = 0;  // groups a token may use (<= top_k)
};

// Throws TopologyError when experts do not divide over the ranks or groups, or top_k is too big.
AllToAllTraffic expected_moe_traffic(const Cluster& cluster, const std::vector<int>& rank_device,
                                     const MoeRouting& routing);

// P(a token reaches a set of experts that covers `x` experts in each of `q` groups).
double hit_probability(const MoeRouting& routing, int q, double x);

}  // namespace moesim::topology
