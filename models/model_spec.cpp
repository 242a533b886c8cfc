#include "models/model_spec.h"

#include <algorithm>

namespace moesim::models {

bool ModelSpec::is_moe_layer(int layer) const {
  if (routed_experts == 0 || layer < first_k_dense || layer >= num_layers) return false;
  return (layer - first_k_dense) % moe_every == 0;
}

int ModelSpec::num_moe_layers() const {
  int n = 0;
  for (int i = 0; i < num_layers; ++i) n += is_moe_layer(i) ? 1 : 0;
  return n;
}

int ModelSpec::attention_window(int layer) const {
  if (window.size <= 0) return 0;
  if (window.full_every > 0 && (layer + 1) % window.full_every == 0) return 0;
  return window.size;
}

int ModelSpec::num_local_layers() const {
  int n = 0;
  for (int i = 0; i < num_layers; ++i) n += attention_window(i) > 0 ? 1 : 0;
  return n;
}

int ModelSpec::rotary_dim() const {
  if (attention == AttentionKind::kMla) return mla.qk_rope_head_dim;
  const int d = static_cast<int>(rope.partial * head_dim + 0.5);
  return d - d % 2;  // RoPE turns pairs of dims
}

std::int64_t ModelSpec::kv_elements_per_token_per_layer() const {
  if (attention == AttentionKind::kMla) return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return 2LL * kv_heads * head_dim;
}

double ModelSpec::kv_bytes_per_token_per_layer() const {
  // A DSA indexer key: index_head_dim FP8 values and one FP32 scale (the V3.2-Exp inference
  // code quantises it in blocks of 128 = index_head_dim).
  const double indexer = sparse.enabled() ? sparse.index_head_dim + 4.0 : 0.0;
  return static_cast<double>(kv_elements_per_token_per_layer()) * bytes_per_element(kv_dtype) + indexer;
}

double ModelSpec::kv_bytes_for_context(std::int64_t tokens) const {
  if (tokens <= 0) return 0;
  std::int64_t cached = 0;  // Σ_layers positions cached
  for (int i = 0; i < num_layers; ++i) {
    const int w = attention_window(i);
    cached += w > 0 ? std::min<std::int64_t>(tokens, w) : tokens;
  }
  return static_cast<double>(cached) * kv_bytes_per_token_per_layer();
}

}  // namespace moesim::models
