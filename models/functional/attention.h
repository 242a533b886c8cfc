// Attention of one layer over a batch of sequences (models/functional/attention_gqa.cpp,
// attention_mla.cpp). The batch's new tokens are the rows of x, sequence by sequence; each
// sequence's rows sit at positions cache.length() ... of its cache, and the call appends their
// keys/values (GQA) or latent and RoPE key (MLA) to the layer's cache before attending, so every
// query sees the whole history plus the new tokens up to itself. Projections run once over all
// rows of the batch; the attention core runs per sequence and head.
#pragma once

#include <span>

#include "models/functional/kv_cache.h"
#include "models/functional/rope.h"
#include "models/functional/tensor.h"
#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct SequenceRows {
  int first_row = 0;
  int rows = 0;
  SequenceCache* cache = nullptr;
};

struct AttentionContext {
  const ModelSpec& spec;
  int layer;
  const RopeTable& rope;
  std::span<const SequenceRows> sequences;
  std::span<const int> positions;  // one per row of x
};

// Multi-head / grouped-query attention (Ainslie et al. 2023): head h reads KV head
// h / (heads / kv_heads); optional q/k biases and norms (before RoPE) and attention sinks.
Matrix gqa_attention(const AttentionContext& c, const GqaWeights& w, const Matrix& x);

// Multi-head latent attention (DeepSeek-V2, arXiv:2405.04434, §2.1): the cache holds the
// normalised latent c_kv and the decoupled RoPE key. Computed in the absorbed form: head h's
// non-RoPE query is mapped into the latent space through its slice of kv_b (W_UK), scores are
// q_latent·c_kvᵀ + q_pe·k_peᵀ scaled by softmax_factor / sqrt(nope + rope), and the output
// latent Σ p·c_kv goes through W_UV; mathematically the same as expanding K and V per head.
Matrix mla_attention(const AttentionContext& c, const MlaWeights& w, const Matrix& x);

}  // namespace moesim::models::functional
