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

bool ModelSpec::is_linear_layer(int layer) const {
  if (!linear.enabled() || layer < 0 || layer >= num_layers) return false;
  return (layer + 1) % linear.full_every != 0;
}

int ModelSpec::num_linear_layers() const {
  if (!linear.enabled()) return 0;
  return num_layers - num_layers / linear.full_every;
}

double ModelSpec::linear_state_bytes_per_layer() const {
  if (!linear.enabled()) return 0;
  const double recurrent = static_cast<double>(linear.value_heads) * linear.key_head_dim * linear.value_head_dim;
  const double conv = static_cast<double>(linear.conv_dim()) * (linear.conv_kernel - 1);
  return recurrent * bytes_per_element(linear.state_dtype) + conv * bytes_per_element(activation_dtype);
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
  return static_cast<double>(kv_elements_per_token_per_layer()) * cache_bytes_per_element(kv_dtype) + indexer;
}

double ModelSpec::kv_bytes_for_context(std::int64_t tokens) const {
  if (tokens <= 0) return 0;
  std::int64_t cached = 0;  // Σ_layers positions cached
  for (int i = 0; i < num_layers; ++i) {
    if (is_linear_layer(i)) continue;
    const int w = attention_window(i);
    cached += w > 0 ? std::min<std::int64_t>(tokens, w) : tokens;
  }
  return static_cast<double>(cached) * kv_bytes_per_token_per_layer() + state_bytes_per_sequence();
}

}  // namespace moesim::models
