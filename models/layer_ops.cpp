#include "models/layer_ops.h"

namespace moesim::models {

std::vector<WeightMatmul> attention_projections(const ModelSpec& m) {
  const std::int64_t h = m.hidden;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    const std::int64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    std::vector<WeightMatmul> ops;
    if (a.q_lora_rank > 0) {
      ops.push_back({"q_a_proj", h, a.q_lora_rank});
      ops.push_back({"q_b_proj", a.q_lora_rank, m.heads * qk_head});
    } else {
      ops.push_back({"q_proj", h, m.heads * qk_head});
    }
    ops.push_back({"kv_a_proj", h, a.kv_lora_rank + a.qk_rope_head_dim});
    ops.push_back({"kv_b_proj", a.kv_lora_rank, m.heads * (a.qk_nope_head_dim + a.v_head_dim)});
    ops.push_back({"o_proj", static_cast<std::int64_t>(m.heads) * a.v_head_dim, h});
    return ops;
  }
  return {
      {"q_proj", h, static_cast<std::int64_t>(m.heads) * m.head_dim},
      {"k_proj", h, static_cast<std::int64_t>(m.kv_heads) * m.head_dim},
      {"v_proj", h, static_cast<std::int64_t>(m.kv_heads) * m.head_dim},
      {"o_proj", static_cast<std::int64_t>(m.heads) * m.head_dim, h},
  };
}

WeightMatmul mlp_gate_up(const ModelSpec& m, std::int64_t intermediate) {
  return {"gate_up_proj", m.hidden, 2 * intermediate};
}
WeightMatmul mlp_down(const ModelSpec& m, std::int64_t intermediate) {
  return {"down_proj", intermediate, m.hidden};
}
WeightMatmul router(const ModelSpec& m) { return {"router", m.hidden, m.routed_experts}; }
WeightMatmul lm_head(const ModelSpec& m) { return {"lm_head", m.hidden, m.vocab}; }

Work attention_decode_core(const ModelSpec& m, std::int64_t kv_len) {
  const double len = static_cast<double>(kv_len);
  Work w;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    // Absorbed: scores over [latent | rope] (576 wide), then values are the latent (512 wide);
    // plus folding W_UK into q and W_UV into the output for this token.
    w.flops = 2.0 * m.heads * len * (a.kv_lora_rank + a.qk_rope_head_dim) +
              2.0 * m.heads * len * a.kv_lora_rank +
              2.0 * m.heads * a.qk_nope_head_dim * a.kv_lora_rank +
              2.0 * m.heads * a.kv_lora_rank * a.v_head_dim;
  } else {
    w.flops = 2.0 * m.heads * len * m.head_dim * 2;
  }
  w.bytes = len * m.kv_bytes_per_token_per_layer();
  return w;
}

Work attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  const double q = static_cast<double>(chunk);
  const double pairs = q * static_cast<double>(past) + q * (q + 1) / 2;  // causal
  const double context = static_cast<double>(past + chunk);
  Work w;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    w.flops = 2.0 * m.heads * pairs * (a.qk_nope_head_dim + a.qk_rope_head_dim) +
              2.0 * m.heads * pairs * a.v_head_dim;
    // Expanding the cached latent of the prefix into per-head K/V (kv_b) is extra work.
    w.flops += 2.0 * static_cast<double>(past) * a.kv_lora_rank * m.heads *
               (a.qk_nope_head_dim + a.v_head_dim);
  } else {
    w.flops = 2.0 * m.heads * pairs * m.head_dim * 2;
  }
  // Reads the cached context once and writes the chunk's new entries.
  w.bytes = context * m.kv_bytes_per_token_per_layer() + q * m.kv_bytes_per_token_per_layer();
  return w;
}

std::int64_t expert_params(const ModelSpec& m) {
  return mlp_gate_up(m, m.moe_intermediate).params() + mlp_down(m, m.moe_intermediate).params();
}

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount p;
  std::int64_t attn_layer = 0;
  for (const auto& op : attention_projections(m)) attn_layer += op.params();
  const std::int64_t dense_layer =
      mlp_gate_up(m, m.dense_intermediate).params() + mlp_down(m, m.dense_intermediate).params();
  const std::int64_t expert = expert_params(m);
  const int moe_layers = m.num_moe_layers();
  p.attention = attn_layer * m.num_layers;
  p.dense_mlp = dense_layer * m.num_dense_layers();
  p.routed_experts = expert * m.routed_experts * moe_layers;
  p.shared_experts = expert * m.shared_experts * moe_layers;
  p.routers = router(m).params() * moe_layers;
  p.embedding = 2LL * m.vocab * m.hidden;
  // A token reads one row of the input embedding but multiplies by the whole LM head.
  p.activated = p.attention + p.dense_mlp + expert * m.top_k * moe_layers + p.shared_experts +
                p.routers + lm_head(m).params() + m.hidden;
  return p;
}

}  // namespace moesim::models

namespace moesim::models {

double dispatch_bytes_per_token(const ModelSpec& m) {
  double b = m.hidden * bytes_per_element(m.dispatch_dtype);
  if (m.dispatch_dtype == DType::kFp8 || m.dispatch_dtype == DType::kFp4) b += (m.hidden / 128.0) * 4.0;
  return b + m.top_k * (4.0 + 4.0);
}

double combine_bytes_per_token(const ModelSpec& m) { return m.hidden * bytes_per_element(m.combine_dtype); }

}  // namespace moesim::models
