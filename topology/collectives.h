// Tensor-parallel collectives and point-to-point transfers, as schedules timed by a fidelity.
//
//   ring  (all-reduce, all-gather, reduce-scatter): the group in the given order; each of the
//         n-1 steps (2(n-1) for all-reduce) every member sends bytes/n to the next (NCCL ring).
//   tree  all-reduce: NCCL's double binary tree, pipelined: two complementary binary trees each
//         reduce half the buffer up and broadcast it down in one stage, paying 2 x depth route
//         latencies. all-gather / reduce-scatter: Bruck's logarithmic algorithm (ceil(log2 n)
//         steps; step k moves min(2^k, n-2^k) blocks of bytes/n to the member 2^k away).
// `bytes`: all-reduce, the buffer on each member; all-gather, the gathered output on each
// member; reduce-scatter, the input on each member.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/comm.h"

namespace moesim::topology {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter };

enum class CollectiveAlgorithm { kRing, kTree };

struct CollectiveOptions {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  const NetworkFidelity* fidelity = &analytic_fidelity();
};

// The registry: each algorithm's name and description, in CollectiveAlgorithm's order.
std::vector<AlgorithmInfo> collective_algorithms();
// The algorithm of that name (resolved where a name is read). Throws TopologyError "unknown
// collective algorithm '<name>' (valid: ring, tree)".
CollectiveAlgorithm find_collective_algorithm(std::string_view name);

Schedule collective_schedule(const Cluster& cluster, const std::vector<int>& group_devices, CollectiveKind kind,
                             double bytes, CollectiveAlgorithm algorithm);
CommResult collective(const Cluster& cluster, const std::vector<int>& group_devices, CollectiveKind kind, double bytes,
                      const CollectiveOptions& options = {});

// Concurrent point-to-point transfers (KV-cache hand-off between pools): one stage.
struct Transfer {
  int src_device = -1;
  int dst_device = -1;
  double bytes = 0;
};
CommResult point_to_point(const Cluster& cluster, const std::vector<Transfer>& transfers,
                          const NetworkFidelity& fidelity = analytic_fidelity());

}  // namespace moesim::topology
