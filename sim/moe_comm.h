// How an MoE layer moves its tokens to the experts and back (`moe.comm`): the all-to-all
// algorithms of topology/all_to_all_algorithm.h, and `allgather-reducescatter`: every rank of the
// EP group gathers every rank's tokens (AllGather of the dispatch payload, padded to the largest
// rank's share as NCCL's equal blocks are), runs its local experts on the pairs routed to them,
// and a ReduceScatter of the outputs (combine payload) returns each token's sum to its owner.
// TensorRT-LLM moves MoE tokens so for attention DP with EP inside one NVLink domain at small EP
// (TensorRT-LLM tech blog 4: "for EP4/EP8 Reduce/Scatter is used, while for EP>8 All2All is used").
// The collectives are timed as the TP collectives are (sim/tp_collective.h).
//
// The registry maps each name to its typed value, MoeCommConfig::all_to_all: the all-to-all
// algorithm's implementation, or none for allgather-reducescatter. The scenario loader resolves
// the name once; the simulator reads the typed value.
#pragma once

#include <string_view>
#include <vector>

#include "topology/all_to_all_algorithm.h"
#include "workloads/registry.h"

namespace moesim::sim {

// Names and descriptions: the all-to-all algorithms, then allgather-reducescatter.
std::vector<workloads::RegistryEntry> moe_comm_algorithms();
// The typed value of a name of moe_comm_algorithms(): its all-to-all algorithm, or nullptr for
// allgather-reducescatter. Throws topology::TopologyError "unknown all-to-all algorithm '<name>'
// (valid: ...)" naming every entry.
const topology::AllToAllAlgorithm* find_moe_comm(std::string_view name);

}  // namespace moesim::sim
