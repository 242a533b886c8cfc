// The fixed part of an MoE all-to-all kernel: what a one-token all-to-all costs.
//
// A dispatch or combine kernel is launched, signals its peers (a barrier or per-peer flags) and
// polls for their completion before it returns; on GB200 NVL72 a one-token dispatch takes
// 19-28 us and a combine 31-33 us where the bytes take well under a microsecond (TensorRT-LLM's
// NVLinkOneSided kernels, nvl72_alltoall_gb200.csv). The model: fixed(op) + peers x flag(op),
// with the route latency (ClusterConfig scaleup/nic latency) on top, as the closed forms add it.
// DeepEP's low-latency kernels are costed as their send and receive kernels on the compute
// stream (sim/rank_costs.h), whose launches are their fixed part: they pay nothing here (the
// model is AllToAllAlgorithm::fixed_ns, which the low-latency algorithm overrides).
#pragma once

#include "topology/all_to_all.h"
#include "topology/cluster.h"

namespace moesim::topology {

// options.algorithm->fixed_ns(config, options, ranks).
double a2a_fixed_ns(const ClusterConfig& config, const AllToAllOptions& options, int ranks);

}  // namespace moesim::topology
