// The weights of a decoder-only MoE transformer in the functional decoder's layout: every
// projection is a Hugging Face nn.Linear weight [out × in] (models/functional/tensor.h); norms
// are vectors. Which members are filled follows the ModelSpec (check_weights validates it):
//
//   GQA/MHA   wq [heads·head_dim × hidden], wk/wv [kv_heads·head_dim × hidden],
//             wo [hidden × heads·head_dim]; biases bq/bk/bv with qkv_bias; q_norm/k_norm with
//             qk_norm (head_dim, or the whole projection width for QkNorm::kFull); sinks [heads]
//             with attention_sinks.
//   MLA       (DeepSeek-V2/V3) q_a [q_lora × hidden] + q_a_norm [q_lora] + q_b
//             [heads·(nope+rope) × q_lora], or wq [heads·(nope+rope) × hidden] without q LoRA;
//             kv_a [kv_lora + rope × hidden] (the latent, then the shared RoPE key),
//             kv_a_norm [kv_lora], kv_b [heads·(nope+v) × kv_lora] (per head: nope rows of
//             K, then v rows of V), wo [hidden × heads·v].
//   SwiGLU    gate, up [width × hidden], down [hidden × width]: down(silu(gate x) ⊙ up x).
//   MoE       router [experts × hidden]; score_bias [experts] (DeepSeek-V3's
//             e_score_correction_bias: used to choose experts, not to weight them);
//             logit_bias [experts] (a routing knob of the random initialisation, added to the
//             logits; empty for checkpoints); routed experts; one shared SwiGLU of width
//             shared_experts × moe_intermediate (n shared experts summed are one wider SwiGLU);
//             shared_gate [1 × hidden] with shared_expert_gate.
#pragma once

#include <string>
#include <vector>

#include "models/functional/tensor.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct GqaWeights {
  Matrix wq, wk, wv, wo;
  Vector bq, bk, bv;
  Vector q_norm, k_norm;
  Vector sinks;
};

struct MlaWeights {
  Matrix q_a, q_b, wq;
  Vector q_a_norm;
  Matrix kv_a, kv_b, wo;
  Vector kv_a_norm;
};

struct SwiGluWeights {
  Matrix gate, up, down;
  int width() const { return static_cast<int>(gate.rows()); }
};

struct MoeWeights {
  Matrix router;
  Vector score_bias;
  Vector logit_bias;
  std::vector<SwiGluWeights> experts;
  SwiGluWeights shared;  // empty (width 0) without shared experts
  Matrix shared_gate;    // [1 × hidden]
};

struct LayerWeights {
  Vector attn_norm, mlp_norm;
  GqaWeights gqa;       // MHA/GQA layers
  MlaWeights mla;       // MLA layers
  SwiGluWeights dense;  // dense layers
  MoeWeights moe;       // MoE layers
};

struct DecoderWeights {
  Matrix embed;  // [vocab × hidden]
  std::vector<LayerWeights> layers;
  Vector final_norm;
  Matrix lm_head;  // [vocab × hidden]; empty when tie_embeddings
};

// Throws ModelError "weights: <tensor>: shape [r, c], expected [r', c']" (or "missing") for the
// first tensor that does not fit the spec; names use the Hugging Face layer paths.
void check_weights(const ModelSpec& spec, const DecoderWeights& weights);

}  // namespace moesim::models::functional
