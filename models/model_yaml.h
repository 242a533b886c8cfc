// Model files: a ModelSpec as YAML (the format of models/presets/*.yaml), read strictly.
//
//   name: deepseek-v3                 # required
//   description: one line for listings
//   source: https://huggingface.co/.../config.json   # the public config followed
//   layers: 61                        # num_hidden_layers
//   hidden: 7168                      # hidden_size
//   vocab: 129280                     # vocab_size
//   tie_embeddings: false             # default false
//   mtp_layers: 1                     # default 0
//   norm_eps: 1e-6                    # RMSNorm epsilon (default 1e-6)
//   rope:                             # rotary embedding (models/model_spec.h, RopeSpec)
//     theta: 10000                    # default 10000
//     interleaved: true               # pairs (2i, 2i+1); default false (pairs (i, i + d/2))
//     yarn: {factor: 40, original_context: 4096, beta_fast: 32, beta_slow: 1, mscale: 1,
//            mscale_all_dim: 1, truncate: true}   # optional; defaults 1, 4096, 32, 1, 1, 0, true
//   attention:
//     kind: mla                       # mha | gqa | mla
//     heads: 128
//     kv_heads: 8                     # gqa (mha: = heads)
//     head_dim: 128                   # mha/gqa
//     q_lora_rank: 1536               # mla (default 0 = plain q projection)
//     kv_lora_rank: 512               # mla
//     qk_nope_head_dim: 128           # mla
//     qk_rope_head_dim: 64            # mla
//     v_head_dim: 128                 # mla
//     window: {size: 128, kind: sliding, full_every: 2}   # optional local attention
//     sinks: false
//     qk_norm: none                   # none (default) | head (Qwen3) | full (OLMoE); mha/gqa
//     qkv_bias: false                 # q/k/v projection biases; mha/gqa
//   mlp: {intermediate: 18432}        # dense-layer SwiGLU width; required when a layer is dense
//   moe:                              # absent: a dense model
//     routed_experts: 256
//     shared_experts: 1               # default 0
//     top_k: 8
//     intermediate: 2048              # per expert
//     first_k_dense: 3                # default 0
//     every: 1                        # default 1
//     scoring: sigmoid                # softmax (default) | sigmoid
//     groups: 8                       # default 1
//     top_groups: 4                   # default = groups
//     normalize_top_k: true           # renormalise the chosen weights (default true)
//     routed_scaling: 2.5             # routed output × this (default 1)
//     shared_expert_gate: false       # Qwen2-MoE sigmoid gate on the shared expert (default false)
//   dtypes: {weights: fp8, experts: fp4, kv_cache: bf16, dispatch: fp8, combine: bf16, activations: bf16}
//
// Unknown keys, wrong types, out-of-range values, missing required keys and inconsistent shapes
// (heads not a multiple of kv_heads, top_k above the routed experts, ...) throw ModelError
// "<source>:<line>:<column>: <key.path>: <message>".
#pragma once

#include <filesystem>
#include <string_view>

#include "models/model_error.h"
#include "models/model_spec.h"

namespace moesim::models {

ModelSpec load_model_yaml(std::string_view text, std::string_view source_name);
ModelSpec load_model_file(const std::filesystem::path& path);

}  // namespace moesim::models
