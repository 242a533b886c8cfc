// ModelSpec: the architecture of a decoder-only (MoE) transformer, as far as serving cost needs it.
//
// Layer i (0-based) is an MoE layer when i >= first_k_dense and (i - first_k_dense) % moe_every
// == 0; every other layer has a dense SwiGLU MLP of `dense_intermediate` columns. Attention is
// MHA/GQA (heads × head_dim, kv_heads × head_dim for K and V) or MLA (DeepSeek-V2/V3 latent
// attention: q LoRA rank, a compressed KV latent of kv_lora_rank plus a shared RoPE key).
#pragma once

#include <cstdint>
#include <string>

#include "models/dtype.h"

namespace moesim::models {

enum class AttentionKind { kMha, kGqa, kMla };
enum class RouterScoring { kSoftmax, kSigmoid };

struct MlaDims {
  int q_lora_rank = 0;        // 0: no low-rank query compression (plain q projection)
  int kv_lora_rank = 512;     // width of the cached KV latent c_kv
  int qk_nope_head_dim = 128;
  int qk_rope_head_dim = 64;  // decoupled RoPE key, cached once per token (shared by heads)
  int v_head_dim = 128;
};

struct ModelSpec {
  std::string name;
  std::string source;  // the public config this spec follows

  int num_layers = 0;
  int hidden = 0;
  int vocab = 0;

  AttentionKind attention = AttentionKind::kGqa;
  int heads = 0;
  int kv_heads = 0;   // MHA/GQA only
  int head_dim = 0;   // MHA/GQA only
  MlaDims mla;        // MLA only

  int first_k_dense = 0;     // leading layers with a dense MLP
  int moe_every = 1;         // MoE on every Nth layer after the dense prefix
  int dense_intermediate = 0;
  int moe_intermediate = 0;  // per routed (and shared) expert
  int routed_experts = 0;    // per MoE layer; 0 = dense model
  int shared_experts = 0;    // per MoE layer
  int top_k = 0;
  RouterScoring scoring = RouterScoring::kSoftmax;
  int expert_groups = 1;     // group-limited routing: groups of experts ...
  int top_groups = 1;        // ... of which each token may use this many

  DType weight_dtype = DType::kBf16;    // expert and projection weights
  DType kv_dtype = DType::kBf16;        // KV cache
  DType dispatch_dtype = DType::kBf16;  // all-to-all dispatch payload
  DType combine_dtype = DType::kBf16;   // all-to-all combine payload
  DType activation_dtype = DType::kBf16;

  bool is_moe_layer(int layer) const;
  int num_moe_layers() const;
  int num_dense_layers() const { return num_layers - num_moe_layers(); }

  // Elements cached per token per layer: MLA caches the latent plus the RoPE key; MHA/GQA cache
  // K and V for every KV head.
  std::int64_t kv_elements_per_token_per_layer() const;
  double kv_bytes_per_token_per_layer() const;
  double kv_bytes_per_token() const { return kv_bytes_per_token_per_layer() * num_layers; }
};

}  // namespace moesim::models
