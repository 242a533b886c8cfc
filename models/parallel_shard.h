// The part of a model one rank of a tensor-parallel group computes and holds (Megatron-LM:
// Shoeybi et al. 2019, "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model
// Parallelism", §3: column-parallel q/k/v and gate/up projections, row-parallel output and down
// projections, one all-reduce after each block).
//
// attention_shard(m, tp) is a ModelSpec whose per-op accounting (models/layer_ops.h) is one
// rank's share of attention and of the dense MLPs:
// - MHA/GQA: heads / tp query heads; kv_heads / tp KV heads, or one KV head per rank
//   (replicated) when tp exceeds the KV heads, as vLLM and SGLang do. K/V cache per rank follows.
// - MLA (DeepSeek-V2/V3): the per-head up-projections (q_b, kv_b) and the output projection are
//   split by heads; the low-rank down-projections (q_a, kv_a) are replicated, and so is the
//   cached latent: every rank of the group holds the whole latent KV cache of its requests
//   (SGLang and vLLM shard MLA by heads this way).
// - dense MLP: dense_intermediate / tp.
// Routed experts, shared experts, router, embedding and LM head are untouched (the MoE has its
// own parallel plan).
#pragma once

#include <string>

#include "models/model_spec.h"

namespace moesim::models {

ModelSpec attention_shard(const ModelSpec& m, int tp);

// Why attention tensor parallelism of degree `tp` cannot split `m` (heads, KV heads or the dense
// MLP do not divide), or "" when it can.
std::string attention_tp_problem(const ModelSpec& m, int tp);
// The same for MoE tensor parallelism (each routed expert's intermediate split tp ways).
std::string moe_tp_problem(const ModelSpec& m, int tp);

}  // namespace moesim::models
