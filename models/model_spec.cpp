#include "models/model_spec.h"

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

std::int64_t ModelSpec::kv_elements_per_token_per_layer() const {
  if (attention == AttentionKind::kMla) return mla.kv_lora_rank + mla.qk_rope_head_dim;
  return 2LL * kv_heads * head_dim;
}

double ModelSpec::kv_bytes_per_token_per_layer() const {
  return static_cast<double>(kv_elements_per_token_per_layer()) * bytes_per_element(kv_dtype);
}

}  // namespace moesim::models
