// An independent, naive reference for the functional decoder (models/functional/), written from
// the architecture's description rather than from the decoder's code: one position at a time,
// in double precision, every product a loop or an Eigen mat-vec, and the attention mask an
// explicit predicate per (query, key) pair. Only the RoPE frequencies and YaRN's amplitude and
// softmax factor come from the library's RopeTable (checked on their own by FunctionalRope.*).
//
// `widen` makes every local window that many positions wider than the spec says: a reference
// that is deliberately wrong, to show that a comparison's tolerance tells such a mask apart.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "models/functional/rope.h"
#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional::test {

using VecD = Eigen::VectorXd;

// May key position j be read by the query at position t on a layer of local window w (0: full)?
inline bool attends(int t, int j, int w, WindowKind kind, int widen) {
  if (j > t) return false;  // causal
  if (w == 0) return true;
  if (kind == WindowKind::kSliding) return t - j <= w - 1 + widen;  // the last w positions, t included
  return j >= (t / w) * w - widen;                                  // t's chunk [⌊t/w⌋·w, t]
}

class ReferenceDecoder {
 public:
  ReferenceDecoder(const ModelSpec& spec, const DecoderWeights& w, int widen = 0)
      : s_(spec),
        w_(w),
        widen_(widen),
        rope_(spec.rope, spec.attention == AttentionKind::kMla ? spec.mla.qk_rope_head_dim : spec.head_dim) {}

  // Logits after each token of `tokens` (row t: the prediction following position t), and the
  // experts each position chose per MoE layer ([moe layer][position · top_k + j], best first).
  Eigen::MatrixXd logits(const std::vector<int>& tokens) {
    const int T = static_cast<int>(tokens.size());
    keys_.assign(static_cast<std::size_t>(s_.num_layers), {});
    values_.assign(static_cast<std::size_t>(s_.num_layers), {});
    chosen.assign(static_cast<std::size_t>(s_.num_moe_layers()), {});
    const Eigen::MatrixXd head = (s_.tie_embeddings ? w_.embed : w_.lm_head).cast<double>();
    Eigen::MatrixXd out(T, s_.vocab);
    for (int t = 0; t < T; ++t) {
      VecD h = w_.embed.row(tokens[static_cast<std::size_t>(t)]).transpose().cast<double>();
      for (int l = 0, moe = 0; l < s_.num_layers; ++l) {
        const LayerWeights& lw = w_.layers[static_cast<std::size_t>(l)];
        const VecD xa = rms(h, lw.attn_norm);
        h += s_.attention == AttentionKind::kMla ? mla(l, t, lw.mla, xa) : gqa(l, t, lw.gqa, xa);
        const VecD xm = rms(h, lw.mlp_norm);
        h += s_.is_moe_layer(l) ? moe_block(lw.moe, xm, chosen[static_cast<std::size_t>(moe++)]) : swiglu(lw.dense, xm);
      }
      out.row(t) = (head * rms(h, w_.final_norm)).transpose();
    }
    return out;
  }

  std::vector<std::vector<int>> chosen;

 private:
  // A layer's window as the spec describes it: every layer local but each full_every-th.
  int window(int l) const {
    if (s_.window.size <= 0) return 0;
    if (s_.window.full_every > 0 && (l + 1) % s_.window.full_every == 0) return 0;
    return s_.window.size;
  }

  VecD rms(const VecD& x, const Vector& weight) const {
    const double inv = 1.0 / std::sqrt(x.squaredNorm() / static_cast<double>(x.size()) + s_.norm_eps);
    return (x * inv).cwiseProduct(weight.cast<double>());
  }

  // Turns pairs (2i, 2i+1) (interleaved) or (i, i + d/2) of x[first, first + d) by pos · f_i.
  void rotate(VecD& x, int first, int pos) const {
    const int d = rope_.dim(), half = d / 2;
    for (int i = 0; i < half; ++i) {
      const double angle = pos * rope_.inverse_frequencies()[static_cast<std::size_t>(i)];
      const double c = std::cos(angle) * rope_.amplitude(), sn = std::sin(angle) * rope_.amplitude();
      const int a = first + (s_.rope.interleaved ? 2 * i : i), b = first + (s_.rope.interleaved ? 2 * i + 1 : i + half);
      const double x1 = x(a), x2 = x(b);
      x(a) = x1 * c - x2 * sn;
      x(b) = x2 * c + x1 * sn;
    }
  }

  // softmax over the keys position t may read, plus an optional sink logit in the denominator.
  std::vector<double> attention_weights(const std::vector<double>& score, int l, int t, double sink,
                                        bool has_sink) const {
    std::vector<double> p(score.size(), 0.0);
    double max = has_sink ? sink : -std::numeric_limits<double>::infinity();
    for (int j = 0; j <= t; ++j)
      if (attends(t, j, window(l), s_.window.kind, widen_)) max = std::max(max, score[static_cast<std::size_t>(j)]);
    double sum = has_sink ? std::exp(sink - max) : 0.0;
    for (int j = 0; j <= t; ++j)
      if (attends(t, j, window(l), s_.window.kind, widen_))
        sum += p[static_cast<std::size_t>(j)] = std::exp(score[static_cast<std::size_t>(j)] - max);
    for (double& x : p) x /= sum;
    return p;
  }

  VecD gqa(int l, int t, const GqaWeights& w, const VecD& x) {
    const int hd = s_.head_dim;
    VecD q = w.wq.cast<double>() * x, k = w.wk.cast<double>() * x, v = w.wv.cast<double>() * x;
    if (s_.qkv_bias) {
      q += w.bq.cast<double>();
      k += w.bk.cast<double>();
      v += w.bv.cast<double>();
    }
    if (s_.qk_norm == QkNorm::kFull) {
      q = rms(q, w.q_norm);
      k = rms(k, w.k_norm);
    } else if (s_.qk_norm == QkNorm::kPerHead) {
      for (int h = 0; h < s_.heads; ++h) q.segment(h * hd, hd) = rms(q.segment(h * hd, hd), w.q_norm);
      for (int h = 0; h < s_.kv_heads; ++h) k.segment(h * hd, hd) = rms(k.segment(h * hd, hd), w.k_norm);
    }
    for (int h = 0; h < s_.heads; ++h) rotate(q, h * hd, t);
    for (int h = 0; h < s_.kv_heads; ++h) rotate(k, h * hd, t);
    keys_[static_cast<std::size_t>(l)].push_back(k);
    values_[static_cast<std::size_t>(l)].push_back(v);
    VecD out = VecD::Zero(static_cast<Eigen::Index>(s_.heads) * hd);
    for (int h = 0; h < s_.heads; ++h) {
      const int g = h / (s_.heads / s_.kv_heads);  // the KV head this query head reads
      std::vector<double> score(static_cast<std::size_t>(t) + 1);
      for (int j = 0; j <= t; ++j)
        score[static_cast<std::size_t>(j)] =
            q.segment(h * hd, hd)
                .dot(keys_[static_cast<std::size_t>(l)][static_cast<std::size_t>(j)].segment(g * hd, hd)) /
            std::sqrt(static_cast<double>(hd));
      const auto p = attention_weights(score, l, t, s_.attention_sinks ? w.sinks(h) : 0.0, s_.attention_sinks);
      for (int j = 0; j <= t; ++j)
        out.segment(h * hd, hd) +=
            p[static_cast<std::size_t>(j)] *
            values_[static_cast<std::size_t>(l)][static_cast<std::size_t>(j)].segment(g * hd, hd);
    }
    return w.wo.cast<double>() * out;
  }

  // MLA in the expanded form: per head, K = [W_UK c, k_pe] and V = W_UV c from the cached latent.
  VecD mla(int l, int t, const MlaWeights& w, const VecD& x) {
    const int dn = s_.mla.qk_nope_head_dim, dr = s_.mla.qk_rope_head_dim, dv = s_.mla.v_head_dim;
    const int latent = s_.mla.kv_lora_rank, qd = dn + dr;
    VecD q = s_.mla.q_lora_rank > 0 ? VecD(w.q_b.cast<double>() * rms(w.q_a.cast<double>() * x, w.q_a_norm))
                                    : VecD(w.wq.cast<double>() * x);
    for (int h = 0; h < s_.heads; ++h) rotate(q, h * qd + dn, t);
    const VecD kv = w.kv_a.cast<double>() * x;
    VecD entry(latent + dr);  // cached: the normalised latent, then the rotated RoPE key
    entry.head(latent) = rms(kv.head(latent), w.kv_a_norm);
    entry.tail(dr) = kv.tail(dr);
    rotate(entry, latent, t);
    keys_[static_cast<std::size_t>(l)].push_back(entry);
    const auto& cache = keys_[static_cast<std::size_t>(l)];
    const double scale = rope_.softmax_factor() / std::sqrt(static_cast<double>(qd));
    const Eigen::MatrixXd kv_b = w.kv_b.cast<double>();
    VecD out = VecD::Zero(static_cast<Eigen::Index>(s_.heads) * dv);
    for (int h = 0; h < s_.heads; ++h) {
      const auto w_uk = kv_b.middleRows(static_cast<Eigen::Index>(h) * (dn + dv), dn);
      const auto w_uv = kv_b.middleRows(static_cast<Eigen::Index>(h) * (dn + dv) + dn, dv);
      std::vector<double> score(static_cast<std::size_t>(t) + 1);
      for (int j = 0; j <= t; ++j) {
        const VecD& c = cache[static_cast<std::size_t>(j)];
        const VecD k_nope = w_uk * c.head(latent);
        score[static_cast<std::size_t>(j)] =
            (q.segment(h * qd, dn).dot(k_nope) + q.segment(h * qd + dn, dr).dot(c.tail(dr))) * scale;
      }
      const auto p = attention_weights(score, l, t, 0.0, false);
      for (int j = 0; j <= t; ++j)
        out.segment(h * dv, dv) +=
            p[static_cast<std::size_t>(j)] * (w_uv * cache[static_cast<std::size_t>(j)].head(latent));
    }
    return w.wo.cast<double>() * out;
  }

  static VecD swiglu(const SwiGluWeights& w, const VecD& x) {
    const VecD g = w.gate.cast<double>() * x, u = w.up.cast<double>() * x;
    VecD a(g.size());
    for (Eigen::Index i = 0; i < g.size(); ++i) a(i) = g(i) / (1.0 + std::exp(-g(i))) * u(i);
    return w.down.cast<double>() * a;
  }

  VecD moe_block(const MoeWeights& w, const VecD& x, std::vector<int>& chosen_ids) const {
    const int E = s_.routed_experts;
    VecD logit = w.router.cast<double>() * x;
    if (w.logit_bias.size() > 0) logit += w.logit_bias.cast<double>();
    std::vector<double> p(static_cast<std::size_t>(E)), choice(p.size());
    if (s_.scoring == RouterScoring::kSoftmax) {
      const double max = logit.maxCoeff();
      double sum = 0;
      for (int e = 0; e < E; ++e) sum += p[static_cast<std::size_t>(e)] = std::exp(logit(e) - max);
      for (double& v : p) v /= sum;
      choice = p;
    } else {
      for (int e = 0; e < E; ++e) {
        p[static_cast<std::size_t>(e)] = 1.0 / (1.0 + std::exp(-logit(e)));
        choice[static_cast<std::size_t>(e)] =
            p[static_cast<std::size_t>(e)] + (w.score_bias.size() > 0 ? w.score_bias(e) : 0.0);
      }
    }
    if (s_.expert_groups > 1) {  // only the top_groups best groups compete
      const int size = E / s_.expert_groups;
      std::vector<std::pair<double, int>> group;
      for (int g = 0; g < s_.expert_groups; ++g) {
        std::vector<double> m(choice.begin() + g * size, choice.begin() + (g + 1) * size);
        std::sort(m.rbegin(), m.rend());
        group.push_back({s_.scoring == RouterScoring::kSigmoid && size > 1 ? m[0] + m[1] : m[0], -g});
      }
      std::sort(group.rbegin(), group.rend());
      std::vector<bool> keep(static_cast<std::size_t>(s_.expert_groups), false);
      for (int i = 0; i < s_.top_groups; ++i)
        keep[static_cast<std::size_t>(-group[static_cast<std::size_t>(i)].second)] = true;
      for (int e = 0; e < E; ++e)
        if (!keep[static_cast<std::size_t>(e / size)])
          choice[static_cast<std::size_t>(e)] = -std::numeric_limits<double>::infinity();
    }
    std::vector<int> order(static_cast<std::size_t>(E));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return choice[static_cast<std::size_t>(a)] > choice[static_cast<std::size_t>(b)];
    });
    double total = 0;
    for (int i = 0; i < s_.top_k; ++i) total += p[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
    VecD out = VecD::Zero(x.size());
    for (int i = 0; i < s_.top_k; ++i) {
      const int e = order[static_cast<std::size_t>(i)];
      chosen_ids.push_back(e);
      const double weight = p[static_cast<std::size_t>(e)] / (s_.norm_top_k ? total : 1.0) * s_.routed_scaling;
      out += weight * swiglu(w.experts[static_cast<std::size_t>(e)], x);
    }
    if (s_.shared_experts > 0) {
      const double gate =
          s_.shared_expert_gate ? 1.0 / (1.0 + std::exp(-w.shared_gate.row(0).transpose().cast<double>().dot(x))) : 1.0;
      out += gate * swiglu(w.shared, x);
    }
    return out;
  }

  const ModelSpec& s_;
  const DecoderWeights& w_;
  int widen_;
  RopeTable rope_;
  std::vector<std::vector<VecD>> keys_, values_;  // [layer][position]
};

}  // namespace moesim::models::functional::test
