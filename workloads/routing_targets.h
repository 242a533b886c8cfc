// RoutingTargets: where one MoE layer's routing goes (built by sim/placement.h): which rank hosts
// each slot, which expert each slot holds, and, per class of source ranks (e.g. per node), the
// share of an expert's assignments that goes to each of its replicas. Sources are the EP ranks
// (attention-DP ranks route their own tokens). Read by the routing sampler's kept per-layer
// setup (routing_setup.h) and by its draws (routing_sampler.h).
#pragma once

#include <cstdint>
#include <vector>

namespace moesim::workloads {

struct RoutingTargets {
  int ranks = 0;  // EP ranks = source ranks
  int experts = 0;
  std::vector<int> slot_rank;      // [slot] rank hosting the slot
  std::vector<int> slot_expert;    // [slot] expert held by the slot
  int classes = 1;                 // classes of source ranks with their own replica shares
  std::vector<int> source_class;   // [source rank] class
  std::vector<double> slot_share;  // [class * slots + slot] share of the expert's pairs sent to this
                                   // slot by a source of the class; sums to 1 over the replicas
  std::vector<int> rank_node;      // [rank] scale-up domain, dense from 0; empty: one node
  // Names this content for the sampler's kept per-layer setup: a caller that keeps a
  // RoutingTargets and changes it gives it a new revision (a sampler then rebuilds without
  // comparing); 0, the default, has every draw compare the content in full.
  std::uint64_t revision = 0;
  int slots() const { return static_cast<int>(slot_rank.size()); }
  // True when both send a draw's pairs to the same places: every field equal but the revision
  // (the shares byte for byte).
  bool same_content(const RoutingTargets& o) const;
  int nodes() const;
  int node_of(int rank) const;
  // One slot per expert, experts split contiguously over the ranks (experts % ranks == 0).
  static RoutingTargets contiguous(int experts, int ranks);
  // Throws WorkloadError when inconsistent.
  void validate() const;
};

}  // namespace moesim::workloads
