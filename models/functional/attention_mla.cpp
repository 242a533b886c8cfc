// Multi-head latent attention over the latent cache (attention.h).
#include <cmath>

#include "models/functional/attention.h"
#include "models/functional/attention_core.h"
#include "models/functional/norms.h"

namespace moesim::models::functional {

Matrix mla_attention(const AttentionContext& c, const MlaWeights& w, const Matrix& x) {
  const ModelSpec& s = c.spec;
  const int dn = s.mla.qk_nope_head_dim, dr = s.mla.qk_rope_head_dim, dv = s.mla.v_head_dim;
  const int latent = s.mla.kv_lora_rank, qd = dn + dr;
  Matrix q = s.mla.q_lora_rank > 0 ? Matrix(rms_norm(x * w.q_a.transpose(), w.q_a_norm, s.norm_eps) * w.q_b.transpose())
                                   : Matrix(x * w.wq.transpose());
  if (dr > 0) c.rope.rotate(q, c.positions, dn, s.heads, qd);
  const Matrix kv = x * w.kv_a.transpose();  // [rows × latent + rope]
  const Matrix ckv = rms_norm(kv.leftCols(latent), w.kv_a_norm, s.norm_eps);
  Matrix kpe = kv.rightCols(dr);
  if (dr > 0) c.rope.rotate(kpe, c.positions, 0, 1);

  const auto scale = static_cast<float>(c.rope.softmax_factor() / std::sqrt(static_cast<double>(qd)));
  AttentionMask mask{0, s.attention_window(c.layer), s.window.kind};
  Matrix out(x.rows(), static_cast<Eigen::Index>(s.heads) * dv);
  for (const SequenceRows& seq : c.sequences) {
    LayerCache& cache = seq.cache->layer(c.layer);
    mask.past = cache.a.rows();
    cache.a.append(ckv.middleRows(seq.first_row, seq.rows));
    cache.b.append(kpe.middleRows(seq.first_row, seq.rows));
    const ConstMatrixMap latents = cache.a.view(), rope_keys = cache.b.view();
    for (int h = 0; h < s.heads; ++h) {
      const auto w_uk = w.kv_b.middleRows(static_cast<Eigen::Index>(h) * (dn + dv), dn);       // [dn × latent]
      const auto w_uv = w.kv_b.middleRows(static_cast<Eigen::Index>(h) * (dn + dv) + dn, dv);  // [dv × latent]
      const Matrix q_latent = q.block(seq.first_row, h * qd, seq.rows, dn) * w_uk;
      Matrix scores = q_latent * latents.transpose();
      if (dr > 0) scores.noalias() += q.block(seq.first_row, h * qd + dn, seq.rows, dr) * rope_keys.transpose();
      masked_softmax(scores, scale, mask);
      const Matrix o_latent = scores * latents;
      out.block(seq.first_row, h * dv, seq.rows, dv) = o_latent * w_uv.transpose();
    }
  }
  return out * w.wo.transpose();
}

}  // namespace moesim::models::functional
