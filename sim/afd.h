// Attention-FFN disaggregation (AFD): the rules an `afd` pool must follow (sim/afd_step.h runs
// its steps; docs/serving.md "Attention-FFN disaggregation").
//
// An AFD instance's first attention_ranks ranks run attention (attention DP over them, each rank
// its own requests and KV cache) and its other ranks hold the experts (EP over them). What is
// modelled, and so what the pool may ask for:
//  - one pipeline stage, attention TP 1 and MoE TP 1 (no tensor-parallel collectives on either
//    side);
//  - the M2N and N2M transfers are sent rank to rank, as MegaScale-Infer's M2N library sends them:
//    `direct` (each token once per expert rank) or `low-latency` (each token-expert pair on its
//    own), not `hierarchical` forwarding nor AllGather + ReduceScatter;
//  - the ping-pong pipeline replaces the overlap schemes (`overlap: none`);
//  - no speculative decoding, and a static expert placement (no EPLB rebalance interval).
#pragma once

#include <string>

#include "models/model_spec.h"
#include "sim/deployment_config.h"

namespace moesim::sim {

// Why `pool`'s AFD configuration cannot run on `model`, or "" when it can (or AFD is off).
std::string afd_problem(const PoolConfig& pool, const models::ModelSpec& model);
// Its first part, on the split alone: whether the attention ranks leave some for the experts.
std::string afd_split_problem(const PoolConfig& pool);

}  // namespace moesim::sim
