// MHA/GQA attention over the KV cache (attention.h).
#include <cmath>

#include "models/functional/attention.h"
#include "models/functional/attention_core.h"
#include "models/functional/norms.h"

namespace moesim::models::functional {

Matrix gqa_attention(const AttentionContext& c, const GqaWeights& w, const Matrix& x) {
  const ModelSpec& s = c.spec;
  const int hd = s.head_dim, group = s.heads / s.kv_heads;
  Matrix q = x * w.wq.transpose(), k = x * w.wk.transpose(), v = x * w.wv.transpose();
  if (w.bq.size() > 0) {
    q.rowwise() += w.bq.transpose();
    k.rowwise() += w.bk.transpose();
    v.rowwise() += w.bv.transpose();
  }
  if (s.qk_norm == QkNorm::kFull) {
    q = rms_norm(q, w.q_norm, s.norm_eps);
    k = rms_norm(k, w.k_norm, s.norm_eps);
  } else if (s.qk_norm == QkNorm::kPerHead) {
    rms_norm_groups(q, w.q_norm, s.norm_eps);
    rms_norm_groups(k, w.k_norm, s.norm_eps);
  }
  // Partial RoPE (ModelSpec::rotary_dim): the first rotary_dim dims of each head turn.
  c.rope.rotate(q, c.positions, 0, s.heads, hd);
  c.rope.rotate(k, c.positions, 0, s.kv_heads, hd);

  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  AttentionMask mask{0, s.attention_window(c.layer), s.window.kind};
  Matrix out(x.rows(), static_cast<Eigen::Index>(s.heads) * hd);
  for (const SequenceRows& seq : c.sequences) {
    LayerCache& cache = seq.cache->layer(c.layer);
    mask.past = cache.a.rows();
    cache.a.append(k.middleRows(seq.first_row, seq.rows));
    cache.b.append(v.middleRows(seq.first_row, seq.rows));
    const ConstMatrixMap keys = cache.a.view(), values = cache.b.view();
    for (int h = 0; h < s.heads; ++h) {
      const int g = h / group;
      Matrix scores = q.block(seq.first_row, h * hd, seq.rows, hd) * keys.middleCols(g * hd, hd).transpose();
      masked_softmax(scores, scale, mask, w.sinks.size() > 0 ? &w.sinks(h) : nullptr);
      out.block(seq.first_row, h * hd, seq.rows, hd) = scores * values.middleCols(g * hd, hd);
    }
  }
  return out * w.wo.transpose();
}

}  // namespace moesim::models::functional
