// Small model specs and comparison helpers for the functional-decoder tests.
#pragma once

#include <algorithm>
#include <cmath>

#include "models/functional/tensor.h"
#include "models/model_spec.h"

namespace moesim::models::functional::test {

// GQA: 3 layers (layer 0 dense), 4 heads over 2 KV heads, 8 experts top-2 plus a shared expert.
inline ModelSpec tiny_gqa() {
  ModelSpec m;
  m.name = "test-gqa";
  m.num_layers = 3;
  m.hidden = 64;
  m.vocab = 97;
  m.attention = AttentionKind::kGqa;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.first_k_dense = 1;
  m.dense_intermediate = 96;
  m.routed_experts = 8;
  m.shared_experts = 1;
  m.top_k = 2;
  m.moe_intermediate = 32;
  return m;
}

// MLA with q LoRA, DeepSeek-V3 routing (sigmoid, 4 groups of 3 experts, top-2 groups, top-3,
// routed scaling 2.5) and YaRN scaling, so every MLA-specific path runs.
inline ModelSpec tiny_mla() {
  ModelSpec m;
  m.name = "test-mla";
  m.num_layers = 3;
  m.hidden = 64;
  m.vocab = 101;
  m.attention = AttentionKind::kMla;
  m.heads = 4;
  m.mla = MlaDims{24, 32, 16, 8, 12};
  m.rope.interleaved = true;
  m.rope.yarn_factor = 4;
  m.rope.yarn_original_context = 16;
  m.rope.yarn_mscale_all_dim = 1;
  m.first_k_dense = 1;
  m.dense_intermediate = 96;
  m.routed_experts = 12;
  m.shared_experts = 2;
  m.top_k = 3;
  m.moe_intermediate = 16;
  m.scoring = RouterScoring::kSigmoid;
  m.expert_groups = 4;
  m.top_groups = 2;
  m.routed_scaling = 2.5;
  return m;
}

// max |a - b| / max |b|: the largest deviation relative to the reference's scale.
inline double max_relative_difference(const Matrix& a, const Matrix& b) {
  const double scale = std::max(1e-30, static_cast<double>(b.cwiseAbs().maxCoeff()));
  return static_cast<double>((a - b).cwiseAbs().maxCoeff()) / scale;
}

}  // namespace moesim::models::functional::test
