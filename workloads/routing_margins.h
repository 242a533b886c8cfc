// RoutingMargins: one MoE layer's routing for a batch, drawn at the resolution the fabric and the
// expert GEMMs see (docs/design.md §4: counts, never per-token choices), instead of a full
// source x destination matrix. For EP groups of hundreds of ranks that matrix is what would
// dominate a simulated step; the margins cost O(ranks x nodes + slots).
//
// Nodes are scale-up domains (RoutingTargets::rank_node). Drawn:
//  - source_pairs / own_node_pairs: each source's tokens · top_k pairs and how many of them stay
//    on its own node (itself included): a Binomial per source, exact;
//  - self_pairs: the pairs a source keeps on its own experts (not sent), exact;
//  - received_remote: the pairs each rank receives from other nodes. A remote pair goes to rank
//    d with probability q_d / (1 - Q_own) of its sender's node, so rank d expects
//    q_d · Σ_{m ≠ node(d)} rem_m / (1 - Q_m); one multinomial over the ranks with those weights
//    keeps every mean exact and each variance within a factor 1 + 1 / (N (N - 1) M) of the exact
//    one (N nodes of M ranks: 4e-4 for 18 HGX nodes);
//  - received_intra: pairs from the other ranks of the receiver's node; on nodes of up to 6
//    ranks each source's internal pairs are split exactly; on larger nodes the node's internal
//    pairs are split once, with probabilities that carry the exact expectation of the
//    self-exclusion (variance x 1 + 1 / (M (M - 2)): 2.1 % for 8-GPU nodes, under 0.02 % on a
//    72-GPU rack);
//  - slot_counts / expert_counts: each slot's pairs (the grouped GEMM's rows), split from its
//    rank's total, exact given it.
// On request (hierarchical forwarding needs each source's nodes) node_pairs holds every source's
// pairs per node, a Multinomial(tokens · top_k, node masses) per source, and block_pairs the
// pairs between nodes; remote receipts are then split per node from them, exactly.
//
// Group-limited routing and trace replay draw the full matrix (their structure is per token
// group) and aggregate it, so every path yields the same margins, with node_pairs and
// block_pairs.
#pragma once

#include <cstdint>
#include <vector>

namespace moesim::workloads {

struct RoutingMargins {
  int ranks = 0;
  int nodes = 0;
  std::vector<std::int64_t> source_pairs;     // [src]
  std::vector<std::int64_t> own_node_pairs;   // [src]
  std::vector<std::int64_t> block_pairs;      // [node m * nodes + node n], n != m; with node_pairs only
  std::vector<std::int64_t> node_pairs;       // [src * nodes + node], empty unless requested
  std::vector<std::int64_t> self_pairs;       // [src]
  std::vector<std::int64_t> received_intra;   // [dst]
  std::vector<std::int64_t> received_remote;  // [dst]
  std::vector<std::int64_t> slot_counts;      // [slot]
  std::vector<std::int64_t> expert_counts;    // [expert], over all replicas
  std::vector<double> rank_mass;              // [rank]: share of all pairs expected there (the model's)
  std::vector<double> node_mass;              // [node]: likewise per node

  bool per_source() const { return !node_pairs.empty(); }
  std::int64_t pairs_to(int src, int node) const {  // per_source() only
    return node_pairs[static_cast<std::size_t>(src) * static_cast<std::size_t>(nodes) + static_cast<std::size_t>(node)];
  }
  std::int64_t received(int dst) const;  // all pairs reaching dst (self included)
};

}  // namespace moesim::workloads
