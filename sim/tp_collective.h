// The time of one tensor-parallel collective (all-reduce, all-gather or reduce-scatter of hidden
// states) over a group of devices: the faster of the ring and tree schedules of
// topology/collectives.h, as NCCL's tuner picks the algorithm with the lowest predicted time for
// the message size (trees win on small, latency-bound messages, rings on large ones).
#pragma once

#include <string>
#include <vector>

#include "topology/cluster.h"
#include "topology/collectives.h"

namespace moesim::sim {

double tp_collective_ns(const topology::Cluster& cluster, const std::vector<int>& devices,
                        topology::CollectiveKind kind, double bytes, const topology::NetworkFidelity& fidelity);

}  // namespace moesim::sim
