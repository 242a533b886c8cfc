// RoutingMargins: one MoE layer's routing for a batch, drawn at the resolution the fabric and the
// expert GEMMs see (DESIGN.md §4: counts, never per-token choices), instead of a full
// source x destination matrix. For EP groups of hundreds of ranks that matrix is what would
// dominate a simulated step; the margins cost O(ranks x nodes + slots).
//
// Nodes are scale-up domains (RoutingTargets::rank_node). Drawn exactly:
//  - node_pairs: for every source rank, its token-expert pairs to every node (its own included),
//    a Multinomial(tokens · top_k, node masses) per source;
//  - self_pairs: the pairs a source keeps on its own experts (not sent), Binomial given the
//    source's own-node pairs;
//  - received_remote: the pairs each rank receives from other nodes (a multinomial split of the
//    node's total from elsewhere, exact given node_pairs: pairs are routed independently);
//  - slot_counts / expert_counts: each slot's pairs (the grouped GEMM's rows), split from its
//    rank's total.
//  - received_intra: pairs from the other ranks of the receiver's node; on nodes of up to 16
//    ranks each source's internal pairs are split exactly. On larger scale-up domains (NVL72
//    racks, supernodes, where per-source splits would cost ranks²) the node's internal pairs are
//    split once, with probabilities that carry the exact expectation of the self-exclusion; the
//    variance then differs from the exact one by O(1 / ranks per node).
//
// Group-limited routing and trace replay draw the full matrix (their structure is per token
// group) and aggregate it, so every path yields the same margins.
#pragma once

#include <cstdint>
#include <vector>

namespace moesim::workloads {

struct RoutingMargins {
  int ranks = 0;
  int nodes = 0;
  std::vector<std::int64_t> node_pairs;       // [src * nodes + node]
  std::vector<std::int64_t> self_pairs;       // [src]
  std::vector<std::int64_t> received_intra;   // [dst]
  std::vector<std::int64_t> received_remote;  // [dst]
  std::vector<std::int64_t> slot_counts;      // [slot]
  std::vector<std::int64_t> expert_counts;    // [expert], over all replicas
  std::vector<double> rank_mass;              // [rank]: share of all pairs expected there (the model's)
  std::vector<double> node_mass;              // [node]: likewise per node

  std::int64_t pairs_to(int src, int node) const {
    return node_pairs[static_cast<std::size_t>(src) * static_cast<std::size_t>(nodes) + static_cast<std::size_t>(node)];
  }
  std::int64_t received(int dst) const;  // all pairs reaching dst (self included)
};

}  // namespace moesim::workloads
