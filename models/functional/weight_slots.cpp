#include "models/functional/weight_slots.h"

#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

class SlotList {
 public:
  explicit SlotList(std::vector<WeightSlot>& out) : out_(out) {}
  void matrix(std::string key, int layer, WeightRole role, Matrix& m, int rows, int cols, int expert = -1) {
    out_.push_back({std::move(key), layer, expert, role, &m, nullptr, rows, cols});
  }
  void vector(std::string key, int layer, WeightRole role, Vector& v, int rows) {
    out_.push_back({std::move(key), layer, -1, role, nullptr, &v, rows, 0});
  }
  void swiglu(const std::string& prefix, int layer, SwiGluWeights& w, int hidden, int width, int expert = -1) {
    matrix(prefix + ".gate", layer, WeightRole::kProjection, w.gate, width, hidden, expert);
    matrix(prefix + ".up", layer, WeightRole::kProjection, w.up, width, hidden, expert);
    matrix(prefix + ".down", layer, WeightRole::kProjection, w.down, hidden, width, expert);
  }

 private:
  std::vector<WeightSlot>& out_;
};

void gqa_slots(const ModelSpec& s, int i, GqaWeights& w, SlotList& out) {
  const int q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  out.matrix("q", i, WeightRole::kProjection, w.wq, q, s.hidden);
  out.matrix("k", i, WeightRole::kProjection, w.wk, kv, s.hidden);
  out.matrix("v", i, WeightRole::kProjection, w.wv, kv, s.hidden);
  out.matrix("o", i, WeightRole::kProjection, w.wo, s.hidden, q);
  if (s.qkv_bias) {
    out.vector("q_bias", i, WeightRole::kBias, w.bq, q);
    out.vector("k_bias", i, WeightRole::kBias, w.bk, kv);
    out.vector("v_bias", i, WeightRole::kBias, w.bv, kv);
  }
  if (s.qk_norm != QkNorm::kNone) {
    const bool full = s.qk_norm == QkNorm::kFull;
    out.vector("q_norm", i, WeightRole::kNorm, w.q_norm, full ? q : s.head_dim);
    out.vector("k_norm", i, WeightRole::kNorm, w.k_norm, full ? kv : s.head_dim);
  }
  if (s.attention_sinks) out.vector("sinks", i, WeightRole::kSinks, w.sinks, s.heads);
}

void mla_slots(const ModelSpec& s, int i, MlaWeights& w, SlotList& out) {
  const auto& d = s.mla;
  const int q = s.heads * (d.qk_nope_head_dim + d.qk_rope_head_dim);
  if (d.q_lora_rank > 0) {
    out.matrix("q_a", i, WeightRole::kProjection, w.q_a, d.q_lora_rank, s.hidden);
    out.vector("q_a_norm", i, WeightRole::kNorm, w.q_a_norm, d.q_lora_rank);
    out.matrix("q_b", i, WeightRole::kProjection, w.q_b, q, d.q_lora_rank);
  } else {
    out.matrix("q", i, WeightRole::kProjection, w.wq, q, s.hidden);
  }
  out.matrix("kv_a", i, WeightRole::kProjection, w.kv_a, d.kv_lora_rank + d.qk_rope_head_dim, s.hidden);
  out.vector("kv_a_norm", i, WeightRole::kNorm, w.kv_a_norm, d.kv_lora_rank);
  out.matrix("kv_b", i, WeightRole::kProjection, w.kv_b, s.heads * (d.qk_nope_head_dim + d.v_head_dim), d.kv_lora_rank);
  out.matrix("o", i, WeightRole::kProjection, w.wo, s.hidden, s.heads * d.v_head_dim);
}

void moe_slots(const ModelSpec& s, int i, MoeWeights& w, SlotList& out) {
  out.matrix("router", i, WeightRole::kRouter, w.router, s.routed_experts, s.hidden);
  if (s.scoring == RouterScoring::kSigmoid)
    out.vector("score_bias", i, WeightRole::kScoreBias, w.score_bias, s.routed_experts);
  w.experts.resize(static_cast<std::size_t>(s.routed_experts));
  for (int e = 0; e < s.routed_experts; ++e)
    out.swiglu("expert", i, w.experts[static_cast<std::size_t>(e)], s.hidden, s.moe_intermediate, e);
  if (s.shared_experts > 0) {
    out.swiglu("shared", i, w.shared, s.hidden, s.shared_experts * s.moe_intermediate);
    if (s.shared_expert_gate) out.matrix("shared_gate", i, WeightRole::kProjection, w.shared_gate, 1, s.hidden);
  }
}

}  // namespace

std::string WeightSlot::describe() const {
  std::string out;
  if (layer >= 0) out += "layer " + std::to_string(layer) + " ";
  if (expert >= 0) out += "expert " + std::to_string(expert) + " ";
  return out + key;
}

std::vector<WeightSlot> weight_slots(const ModelSpec& s, DecoderWeights& w) {
  std::vector<WeightSlot> slots;
  SlotList out(slots);
  out.matrix("embed", -1, WeightRole::kEmbedding, w.embed, s.vocab, s.hidden);
  w.layers.resize(static_cast<std::size_t>(s.num_layers));
  for (int i = 0; i < s.num_layers; ++i) {
    LayerWeights& l = w.layers[static_cast<std::size_t>(i)];
    out.vector("attn_norm", i, WeightRole::kNorm, l.attn_norm, s.hidden);
    if (s.attention == AttentionKind::kMla)
      mla_slots(s, i, l.mla, out);
    else
      gqa_slots(s, i, l.gqa, out);
    out.vector("mlp_norm", i, WeightRole::kNorm, l.mlp_norm, s.hidden);
    if (s.is_moe_layer(i))
      moe_slots(s, i, l.moe, out);
    else
      out.swiglu("mlp", i, l.dense, s.hidden, s.dense_intermediate);
  }
  out.vector("final_norm", -1, WeightRole::kNorm, w.final_norm, s.hidden);
  if (!s.tie_embeddings) out.matrix("lm_head", -1, WeightRole::kProjection, w.lm_head, s.vocab, s.hidden);
  return slots;
}

std::string shape_text(int rows, int cols) {
  std::string out = "[";
  out += std::to_string(rows);
  if (cols != 0) out += ", " + std::to_string(cols);
  out += "]";
  return out;
}

void check_weights(const ModelSpec& spec, const DecoderWeights& weights) {
  if (weights.layers.size() != static_cast<std::size_t>(spec.num_layers))
    throw ModelError("weights: " + std::to_string(weights.layers.size()) + " layers, the model has " +
                     std::to_string(spec.num_layers));
  // weight_slots only resizes containers, which already have their sizes here (checked above
  // for the layers; the expert lists are compared below before any slot is read).
  auto& w = const_cast<DecoderWeights&>(weights);
  for (int i = 0; i < spec.num_layers; ++i)
    if (spec.is_moe_layer(i) &&
        w.layers[static_cast<std::size_t>(i)].moe.experts.size() != static_cast<std::size_t>(spec.routed_experts))
      throw ModelError("weights: layer " + std::to_string(i) + ": " +
                       std::to_string(w.layers[static_cast<std::size_t>(i)].moe.experts.size()) +
                       " routed experts, the model has " + std::to_string(spec.routed_experts));
  for (const WeightSlot& s : weight_slots(spec, w)) {
    const int rows = s.matrix ? static_cast<int>(s.matrix->rows()) : static_cast<int>(s.vector->size());
    const int cols = s.matrix ? static_cast<int>(s.matrix->cols()) : 0;
    if (rows == s.rows && cols == s.cols) continue;
    throw ModelError("weights: " + s.describe() + ": " +
                     (rows == 0 ? std::string("missing") : "shape " + shape_text(rows, cols)) + ", expected " +
                     shape_text(s.rows, s.cols));
  }
}

}  // namespace moesim::models::functional
