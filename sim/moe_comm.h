// How an MoE layer moves its tokens to the experts and back (`moe.comm`): the all-to-all
// algorithms of topology/all_to_all.h, and `allgather-reducescatter`: every rank of the EP
// group gathers every rank's tokens (AllGather of the dispatch payload, padded to the largest
// rank's share as NCCL's equal blocks are), runs its local experts on the pairs routed to them,
// and a ReduceScatter of the outputs (combine payload) returns each token's sum to its owner.
// TensorRT-LLM moves MoE tokens so for attention DP with EP inside one NVLink domain at small EP
// (TensorRT-LLM tech blog 4: "for EP4/EP8 Reduce/Scatter is used, while for EP>8 All2All is used").
// The collectives are timed as the TP collectives are (sim/tp_collective.h).
#pragma once

#include <string_view>
#include <vector>

#include "workloads/registry.h"

namespace moesim::sim {

inline constexpr std::string_view kGatherScatter = "allgather-reducescatter";

std::vector<workloads::RegistryEntry> moe_comm_algorithms();

}  // namespace moesim::sim
