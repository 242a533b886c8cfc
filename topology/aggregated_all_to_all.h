// AggregatedAllToAll: the analytic all-to-all of MoE dispatch/combine on a preset fabric, from
// traffic margins (topology/traffic.h, AggregatedTraffic) instead of a rank x rank matrix. Built
// once per rank placement (the simulator keeps one per instance); each call is
// O(ranks x nodes + links), which is what lets a 1,000-rank EP group be costed per layer.
//
// Per device the margins give the scale-up send and receive volumes (traffic inside its node)
// and the NIC send and receive volumes (traffic across nodes) exactly, so every device link is
// loaded as in the full-matrix closed form (topology/a2a_closed_form.h). Two splits the margins
// do not carry are taken at their conditional expectation given the margins, treating the pairs
// that reach a node from elsewhere as exchangeable (true of routing drawn per pair):
//  - scale-out leaves (rail-optimised fabrics): the part of a sender's traffic to node n that
//    lands on ranks of another leaf follows node n's received shares per leaf, and the part of a
//    receiver's traffic sent from another leaf follows the senders' shares into its node;
//  - hierarchical forwarding: the forwarder of each (source rail, node) relays to every rank of
//    the node in proportion to that rank's remote receipts;
//  - with AllToAllOptions::network_only, the leaves of a sender's pairs inside its own node
//    follow its node peers' shares of the node's internal receipts (and a receiver's, its
//    peers' shares of the internal sends).
// Both sum many independent pairs, so their relative fluctuation is small next to the per-device
// volumes, which carry the skew.
#pragma once

#include <vector>

#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/comm.h"
#include "topology/rank_layout.h"
#include "topology/traffic.h"

namespace moesim::topology {

struct A2aVolumes;  // topology/a2a_closed_form.h

// Dense scale-up domain of each rank: the cluster nodes the ranks sit on, numbered 0, 1, ... in
// order of first appearance in rank order. Throws TopologyError for a bad rank placement.
std::vector<int> rank_domains(const Cluster& cluster, const std::vector<int>& rank_device);

// The margins of a full traffic description (every view of `traffic`: pairs from the
// token-expert matrix, rank tokens from the pair matrix, node tokens from the node matrix or the
// pair matrix summed per node). Self traffic is dropped. Used to cost a matrix the aggregated way
// and by tests comparing the two.
AggregatedTraffic aggregate_traffic(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView traffic);

class AggregatedAllToAll {
 public:
  // Throws TopologyError when the cluster is not a preset fabric (no bounding links) or the
  // placement is bad.
  AggregatedAllToAll(const Cluster& cluster, const std::vector<int>& rank_device);

  int ranks() const { return layout_.ranks; }
  int nodes() const { return nodes_; }
  const std::vector<int>& rank_node() const { return rank_node_; }

  // Analytic fidelity only (the flow fidelity needs every flow). Throws TopologyError for a
  // traffic shape that disagrees with the placement or the algorithm, or a negative scale.
  CommResult operator()(const AggregatedTraffic& traffic, const AllToAllOptions& options) const;
  // The same into `out`, with `scratch` for the volumes: a caller that keeps both across calls
  // (one pair per thread) allocates nothing per all-to-all.
  void operator()(const AggregatedTraffic& traffic, const AllToAllOptions& options, A2aVolumes& scratch,
                  CommResult& out) const;
  // The same timing into `out` without the per-link loads (closed_form_timing: link_bytes empty),
  // the volumes left in `volumes`: a caller that books link loads for many all-to-alls adds up
  // their volumes and asks `links` once.
  void timing(const AggregatedTraffic& traffic, const AllToAllOptions& options, A2aVolumes& volumes,
              CommResult& out) const;
  // The full result (link loads included) of an all-to-all with these volumes.
  void links(const A2aVolumes& volumes, const AllToAllOptions& options, CommResult& out) const;

  // The building blocks of the algorithms' volumes (AllToAllAlgorithm::aggregated_volumes), into
  // `v` (reset). Every token of margins `m` on the shortest route, `message_bytes` > 0 counting
  // its messages (low-latency), with network_only those inside a node over the network too:
  void direct_volumes(const TrafficMargins& m, double scale, double message_bytes, bool network_only,
                      A2aVolumes& v) const;
  // The network hop once per (token, node) to the forwarder, then the scale-up fan-out (per-sender
  // margins, not factored ones):
  void hierarchical_volumes(const AggregatedTraffic& t, double scale, A2aVolumes& v) const;

 private:
  void fill_volumes(const AggregatedTraffic& traffic, const AllToAllOptions& options, A2aVolumes& v) const;
  void leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const;
  void factored_leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const;
  void own_node_leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const;

  const Cluster& cluster_;
  RankLayout layout_;
  int nodes_ = 0;
  int leaf_count_ = 0;
  std::vector<int> rank_node_;                // [rank] dense node
  std::vector<std::vector<int>> node_ranks_;  // [dense node] ranks
  std::vector<int> forwarder_;                // [rank * nodes + node] hierarchical relay, -1 if none
};

}  // namespace moesim::topology
