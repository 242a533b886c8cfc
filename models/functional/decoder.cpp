#include "models/functional/decoder.h"

#include <string>

#include "models/functional/attention.h"
#include "models/functional/norms.h"
#include "models/functional/swiglu.h"
#include "models/model_error.h"

namespace moesim::models::functional {
namespace {}  // namespace

Decoder::Decoder(ModelSpec spec, DecoderWeights weights)
    : spec_(std::move(spec)), w_(std::move(weights)), rope_(spec_.rope, spec_.rotary_dim()) {
  check_weights(spec_, w_);
  // DSA's indexer and top-k selection are costed (models/layer_ops.h) but not run here; dense
  // attention in their place would give traces of a different model.
  if (spec_.sparse.enabled())
    throw ModelError(spec_.name + ": sparse attention (DSA) is not run by the functional decoder");
  if (spec_.linear.enabled())
    throw ModelError(spec_.name + ": linear attention (Gated DeltaNet) is not run by the functional decoder");
}

int Decoder::add_sequence() {
  sequences_.emplace_back(spec_);
  return static_cast<int>(sequences_.size()) - 1;
}

int Decoder::sequence_length(int sequence) const { return sequences_.at(static_cast<std::size_t>(sequence)).length(); }

std::int64_t Decoder::cache_bytes() const {
  std::int64_t total = 0;
  for (const auto& s : sequences_) total += s.bytes();
  return total;
}

ForwardResult Decoder::forward(std::span<const BatchEntry> batch, bool all_logits) {
  std::vector<SequenceRows> seqs;
  std::vector<int> positions;
  std::vector<bool> seen(sequences_.size(), false);
  int rows = 0;
  for (const BatchEntry& e : batch) {
    if (e.sequence < 0 || static_cast<std::size_t>(e.sequence) >= sequences_.size() ||
        seen[static_cast<std::size_t>(e.sequence)])
      throw ModelError("forward: sequence " + std::to_string(e.sequence) + " is unknown or appears twice in the batch");
    if (e.tokens.empty()) throw ModelError("forward: sequence " + std::to_string(e.sequence) + " has no new tokens");
    seen[static_cast<std::size_t>(e.sequence)] = true;
    SequenceCache& cache = sequences_[static_cast<std::size_t>(e.sequence)];
    seqs.push_back({rows, static_cast<int>(e.tokens.size()), &cache});
    for (std::size_t i = 0; i < e.tokens.size(); ++i) positions.push_back(cache.length() + static_cast<int>(i));
    rows += static_cast<int>(e.tokens.size());
  }

  Matrix h(rows, spec_.hidden);
  int r = 0;
  for (const BatchEntry& e : batch)
    for (int t : e.tokens) {
      if (t < 0 || t >= spec_.vocab)
        throw ModelError("forward: token " + std::to_string(t) + " outside the vocabulary (0.." +
                         std::to_string(spec_.vocab - 1) + ")");
      h.row(r++) = w_.embed.row(t);
    }

  ForwardResult out;
  out.work.tokens = rows;
  for (int l = 0; l < spec_.num_layers; ++l) {
    const LayerWeights& lw = w_.layers[static_cast<std::size_t>(l)];
    const AttentionContext ctx{spec_, l, rope_, seqs, positions};
    const Matrix xa = rms_norm(h, lw.attn_norm, spec_.norm_eps);
    h += spec_.attention == AttentionKind::kMla ? mla_attention(ctx, lw.mla, xa) : gqa_attention(ctx, lw.gqa, xa);
    out.work.attention_rows += rows;
    const Matrix xm = rms_norm(h, lw.mlp_norm, spec_.norm_eps);
    if (spec_.is_moe_layer(l)) {
      Routing routing = route(spec_, lw.moe, xm);
      h += run_experts(lw.moe, xm, routing, out.work.experts);
      out.work.routed_rows += rows;
      out.routing.push_back(std::move(routing));
    } else {
      h += swiglu(xm, lw.dense);
      out.work.dense_rows += rows;
    }
  }

  Matrix last;
  if (all_logits) {
    last = h;
  } else {
    last.resize(static_cast<Eigen::Index>(seqs.size()), spec_.hidden);
    for (std::size_t i = 0; i < seqs.size(); ++i)
      last.row(static_cast<Eigen::Index>(i)) = h.row(seqs[i].first_row + seqs[i].rows - 1);
  }
  const Matrix normed = rms_norm(last, w_.final_norm, spec_.norm_eps);
  out.logits = normed * (spec_.tie_embeddings ? w_.embed : w_.lm_head).transpose();
  return out;
}

}  // namespace moesim::models::functional
