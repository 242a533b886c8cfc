// All-to-all-v on a cluster: algorithms `direct`, `hierarchical`, `low-latency` (one
// implementation each, topology/all_to_all_algorithm.h) at fidelity `analytic` or `flow`
// (topology/fidelity.h).
//
//   direct        every rank sends to every rank over the shortest route (NVLink inside the
//                 scale-up domain, NIC and fat-tree across), each token once per destination rank.
//   hierarchical  DeepEP normal mode: a token crosses the network once per destination node, to
//                 the rank with the sender's local index there (same rail: no spine hop), which
//                 forwards it over NVLink to the destination ranks; both hops are pipelined.
//   low-latency   DeepEP low-latency mode: one message per token-expert pair, straight to the
//                 expert's rank (RDMA across domains, NVLink inside), plus a per-message term.
// With `network_only`, direct and low-latency send the pairs between ranks of one scale-up
// domain over the scale-out network too (through both NICs, and a spine where their leaves
// differ): DeepEP's low-latency kernels did so for every peer until NVLink support for them
// (DeepEP PR #173, 2025-05-23), and still do with NVLink traffic disabled, which hook-based
// overlap requires. Hierarchical forwarding is defined by its NVLink hop and rejects it.
// The analytic fidelity on a preset fabric uses closed-form per-device, per-leaf volumes
// (topology/a2a_closed_form.h), equal to analytic on the routed schedule but O(ranks²) cheap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/all_to_all_algorithm.h"
#include "topology/cluster.h"
#include "topology/comm.h"
#include "topology/fidelity.h"
#include "topology/traffic.h"

namespace moesim::topology {

enum class Direction { kDispatch, kCombine };

struct AllToAllOptions {
  const AllToAllAlgorithm* algorithm = &direct_all_to_all();  // find_all_to_all() resolves a name
  const NetworkFidelity* fidelity = &analytic_fidelity();     // find_fidelity() resolves a name
  Direction direction = Direction::kDispatch;                 // kCombine reverses every flow
  double scale = 1.0;                                         // multiplies every traffic entry (tokens -> bytes)
  bool network_only = false;                                  // see above: intra-domain pairs over the network
};

struct AlgorithmInfo {
  std::string_view name;
  std::string_view description;
};
// The names and descriptions of all_to_all_registry().
std::vector<AlgorithmInfo> all_to_all_algorithms();

// Throws TopologyError when `network_only` is asked of an algorithm that forwards over the
// scale-up fabric (hierarchical), or no algorithm is given; every entry point checks it.
void check_network_only(const AllToAllOptions& options);

// `rank_device[r]` is the cluster device of rank r (distinct devices). Traffic from a rank to
// itself is free. Throws TopologyError for an unknown fidelity, a rank count that
// disagrees with the traffic, a device out of range, or two ranks on one device.
CommResult all_to_all(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView traffic,
                      const AllToAllOptions& options = {});
inline CommResult all_to_all(const Cluster& cluster, const std::vector<int>& rank_device, const TrafficMatrix& bytes,
                             const AllToAllOptions& options = {}) {
  return all_to_all(cluster, rank_device, TrafficView(bytes), options);
}

// The transfer schedule an algorithm produces (one pipelined stage), with `scale` applied.
Schedule all_to_all_schedule(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView traffic,
                             const AllToAllOptions& options);

// Earlier interface, kept for callers: direct algorithm, analytic fidelity.
struct CollectiveCost {
  double duration_ns = 0;
  double max_scaleup_bytes = 0;   // largest per-device scale-up send or receive volume
  double max_scaleout_bytes = 0;  // largest per-device scale-out send or receive volume
  int bottleneck_rank = -1;
};
CollectiveCost all_to_all_v_analytic(const Cluster& cluster, const std::vector<int>& rank_device,
                                     const TrafficMatrix& traffic);

}  // namespace moesim::topology
