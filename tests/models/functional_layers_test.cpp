// The functional decoder's building blocks against independent computations: RoPE and YaRN
// frequencies, the router's scoring, group limit and weights, batched experts against a
// per-token loop, and absorbed MLA against the expanded form.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "functional_test_support.h"
#include "models/functional/attention.h"
#include "models/functional/experts.h"
#include "models/functional/norms.h"
#include "models/functional/rope.h"
#include "models/functional/router.h"
#include "models/functional/swiglu.h"
#include "models/functional/weights_random.h"

namespace moesim::models::functional {
namespace {

Matrix random_rows(int rows, int cols, int salt) {
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(std::sin(0.7 * r + 1.3 * c + salt));
  return m;
}

// RoPE is a rotation: norms are kept and q·k depends only on the distance between positions.
TEST(FunctionalRope, RotatesByRelativePosition) {
  for (bool interleaved : {false, true}) {
    RopeSpec spec;
    spec.interleaved = interleaved;
    const RopeTable rope(spec, 16);
    const Matrix q0 = random_rows(1, 16, 1), k0 = random_rows(1, 16, 2);
    const auto score = [&](int mq, int mk) {
      Matrix q = q0, k = k0;
      const int pq[] = {mq}, pk[] = {mk};
      rope.rotate(q, pq, 0, 1);
      rope.rotate(k, pk, 0, 1);
      EXPECT_NEAR(q.norm(), q0.norm(), 1e-5);
      return static_cast<double>((q * k.transpose())(0, 0));
    };
    EXPECT_NEAR(score(5, 2), score(13, 10), 1e-4);
    EXPECT_NEAR(score(0, 0), static_cast<double>((q0 * k0.transpose())(0, 0)), 1e-6);
    EXPECT_GT(std::abs(score(5, 2) - score(5, 4)), 1e-3);
  }
  // Pair layout: interleaved turns (x0, x1) by position · θ^0; rotate_half turns (x0, x8).
  RopeSpec spec;
  spec.interleaved = true;
  Matrix x = Matrix::Zero(1, 16);
  x(0, 0) = 1;
  const int pos[] = {1};
  RopeTable(spec, 16).rotate(x, pos, 0, 1);
  EXPECT_NEAR(x(0, 0), std::cos(1.0), 1e-6);
  EXPECT_NEAR(x(0, 1), std::sin(1.0), 1e-6);
  spec.interleaved = false;
  x.setZero();
  x(0, 0) = 1;
  RopeTable(spec, 16).rotate(x, pos, 0, 1);
  EXPECT_NEAR(x(0, 0), std::cos(1.0), 1e-6);
  EXPECT_NEAR(x(0, 8), std::sin(1.0), 1e-6);
}

// Partial RoPE (GLM-4.5: half of each head): a table of the rotary width turns the first
// rotary_dim dims of each head-wide span and leaves the rest as they were.
TEST(FunctionalRope, PartialRotaryTurnsTheFirstDimsOfEachHead) {
  ModelSpec m;
  m.attention = AttentionKind::kGqa;
  m.head_dim = 16;
  m.rope.partial = 0.5;
  ASSERT_EQ(m.rotary_dim(), 8);
  Matrix x = Matrix::Ones(1, 32);  // two heads of 16
  const int pos[] = {3};
  RopeTable(m.rope, m.rotary_dim()).rotate(x, pos, 0, 2, m.head_dim);
  for (int h = 0; h < 2; ++h) {
    // (x0, x4) turn by 3·θ^0 = 3 radians; dims 8..15 pass through.
    EXPECT_NEAR(x(0, h * 16), std::cos(3.0) - std::sin(3.0), 1e-6);
    EXPECT_NEAR(x(0, h * 16 + 4), std::cos(3.0) + std::sin(3.0), 1e-6);
    for (int d = 8; d < 16; ++d) EXPECT_EQ(x(0, h * 16 + d), 1.0f) << h << " " << d;
  }
}

// DeepSeek-V3's YaRN settings on its 64-wide RoPE key: the correction range is dimensions
// floor(64 ln(4096 / (32·2π)) / (2 ln 10⁴)) = 10 to ceil(64 ln(4096 / 2π) / (2 ln 10⁴)) = 23.
TEST(FunctionalRope, YarnBlendsFrequenciesOverTheCorrectionRange) {
  RopeSpec spec;
  spec.yarn_factor = 40;
  spec.yarn_original_context = 4096;
  spec.yarn_mscale_all_dim = 1;
  const RopeTable rope(spec, 64);
  const auto base = [](int i) { return std::pow(10000.0, -2.0 * i / 64); };
  const auto& f = rope.inverse_frequencies();
  ASSERT_EQ(f.size(), 32u);
  for (int i = 0; i <= 10; ++i) EXPECT_DOUBLE_EQ(f[static_cast<std::size_t>(i)], base(i)) << i;
  for (int i = 23; i < 32; ++i) EXPECT_NEAR(f[static_cast<std::size_t>(i)], base(i) / 40, 1e-15) << i;
  const double ramp = (16.0 - 10) / (23 - 10);
  EXPECT_NEAR(f[16], base(16) / 40 * ramp + base(16) * (1 - ramp), 1e-15);
  EXPECT_DOUBLE_EQ(rope.amplitude(), 1.0);  // mscale = mscale_all_dim
  const double m = 0.1 * std::log(40.0) + 1;
  EXPECT_NEAR(rope.softmax_factor(), m * m, 1e-12);
  EXPECT_NEAR(rope.softmax_factor(), 1.8739, 1e-4);
  // Without mscale_all_dim (gpt-oss), cos and sin carry m(1) = 0.1 ln(factor) + 1.
  spec.yarn_factor = 32;
  spec.yarn_mscale_all_dim = 0;
  EXPECT_NEAR(RopeTable(spec, 64).amplitude(), 0.1 * std::log(32.0) + 1, 1e-12);
}

MoeWeights router_only(const ModelSpec& s, const Matrix& router) {
  MoeWeights w;
  w.router = router;
  (void)s;
  return w;
}

TEST(FunctionalRouter, SoftmaxTopKRenormalisedOrNot) {
  ModelSpec s;
  s.routed_experts = 4;
  s.top_k = 2;
  s.hidden = 4;
  const Matrix x = Matrix::Identity(1, 4);  // logits = the router's first column
  Matrix router(4, 4);
  router.setZero();
  router(0, 0) = 1.0f;
  router(1, 0) = 3.0f;
  router(2, 0) = 2.0f;
  router(3, 0) = 3.0f;  // ties with expert 1: the lower id wins first place
  const double z = std::exp(1.0) + 2 * std::exp(3.0) + std::exp(2.0);
  Routing r = route(s, router_only(s, router), x);
  ASSERT_EQ(r.ids, (std::vector<int>{1, 3}));
  EXPECT_NEAR(r.weights[0], 0.5, 1e-6);
  EXPECT_NEAR(r.weights[1], 0.5, 1e-6);
  s.norm_top_k = false;
  s.routed_scaling = 2;
  r = route(s, router_only(s, router), x);
  EXPECT_NEAR(r.weights[0], 2 * std::exp(3.0) / z, 1e-6);
}

// DeepSeek-V3 routing by hand: 8 experts in 4 groups of 2, 2 groups per token, top-3.
TEST(FunctionalRouter, SigmoidWithCorrectionBiasAndGroupLimit) {
  ModelSpec s;
  s.routed_experts = 8;
  s.top_k = 3;
  s.hidden = 8;
  s.scoring = RouterScoring::kSigmoid;
  s.expert_groups = 4;
  s.top_groups = 2;
  s.routed_scaling = 2.5;
  const std::vector<float> logits = {2.0f, -2.0f, 0.5f, 0.4f, 1.5f, 1.4f, -1.0f, 3.0f};
  const std::vector<float> bias = {0, 0, 0, 0, 0, 0, 0, -0.9f};
  Matrix router = Matrix::Zero(8, 8);
  for (int e = 0; e < 8; ++e) router(e, 0) = logits[static_cast<std::size_t>(e)];
  MoeWeights w = router_only(s, router);
  w.score_bias = Eigen::Map<const Vector>(bias.data(), 8);
  const auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  // Choice scores: sigmoid + bias; groups score the sum of their two members:
  // g0 = σ(2)+σ(-2) = 1.000, g1 = σ(.5)+σ(.4) = 1.2211, g2 = σ(1.5)+σ(1.4) = 1.6198,
  // g3 = σ(-1)+σ(3)-0.9 = 0.3215 → groups 2 and 1 (expert 0, the best alone, is shut out).
  // The best three there: 4, 5, 2, weighted by their sigmoids (not the biased scores).
  const Routing r = route(s, w, Matrix::Identity(1, 8));
  ASSERT_EQ(r.ids, (std::vector<int>{4, 5, 2}));
  const double sum = sig(1.5) + sig(1.4) + sig(0.5);
  EXPECT_NEAR(r.weights[0], 2.5 * sig(1.5) / sum, 1e-6);
  EXPECT_NEAR(r.weights[2], 2.5 * sig(0.5) / sum, 1e-6);
  // Without the bias g3 = 1.2215 edges out g1 = 1.2211: groups 2 and 3, experts 7, 4, 5.
  w.score_bias = Vector();
  EXPECT_EQ(route(s, w, Matrix::Identity(1, 8)).ids, (std::vector<int>{7, 4, 5}));
  // Softmax scoring ranks groups by their best member: g0 (expert 0 at logit 2) and g3 (7).
  s.scoring = RouterScoring::kSoftmax;
  EXPECT_EQ(route(s, w, Matrix::Identity(1, 8)).ids, (std::vector<int>{7, 0, 6}));
}

// The batched experts equal a per-token, per-expert loop.
TEST(FunctionalExperts, GroupedGemmsEqualThePerTokenSum) {
  const ModelSpec s = test::tiny_gqa();
  const DecoderWeights dw = random_weights(s, {5, 2.0, 1.0});
  const MoeWeights& w = dw.layers[1].moe;
  const Matrix x = random_rows(9, s.hidden, 3);
  const Routing r = route(s, w, x);
  ExpertWork work;
  const Matrix got = run_experts(w, x, r, work);
  Matrix want = swiglu(x, w.shared);
  for (int t = 0; t < 9; ++t)
    for (int j = 0; j < s.top_k; ++j) {
      const auto p = static_cast<std::size_t>(t * s.top_k + j);
      want.row(t) += r.weights[p] * swiglu(Matrix(x.row(t)), w.experts[static_cast<std::size_t>(r.ids[p])]).row(0);
    }
  EXPECT_LE(test::max_relative_difference(got, want), 1e-5);
  EXPECT_EQ(work.pairs, 9 * s.top_k);
  EXPECT_EQ(work.shared_rows, 9);
}

// Absorbed MLA against the expanded form (per-head K and V built from the latent).
TEST(FunctionalMla, AbsorbedEqualsExpandedAttention) {
  const ModelSpec s = test::tiny_mla();
  const DecoderWeights dw = random_weights(s, {9, 1.0, 0.5});
  const MlaWeights& w = dw.layers[0].mla;
  const int n = 6, dn = s.mla.qk_nope_head_dim, dr = s.mla.qk_rope_head_dim, dv = s.mla.v_head_dim;
  const Matrix x = random_rows(n, s.hidden, 7);
  const RopeTable rope(s.rope, dr);
  std::vector<int> pos(n);
  for (int i = 0; i < n; ++i) pos[static_cast<std::size_t>(i)] = i;
  SequenceCache cache(s);
  const SequenceRows seq{0, n, &cache};
  const Matrix got = mla_attention({s, 0, rope, {&seq, 1}, pos}, w, x);

  Matrix q = rms_norm(x * w.q_a.transpose(), w.q_a_norm, s.norm_eps) * w.q_b.transpose();
  rope.rotate(q, pos, dn, s.heads, dn + dr);
  const Matrix kv = x * w.kv_a.transpose();
  const Matrix c = rms_norm(kv.leftCols(s.mla.kv_lora_rank), w.kv_a_norm, s.norm_eps);
  Matrix kpe = kv.rightCols(dr);
  rope.rotate(kpe, pos, 0, 1);
  const Matrix kvb = c * w.kv_b.transpose();  // [n × heads·(dn + dv)]
  const double scale = rope.softmax_factor() / std::sqrt(static_cast<double>(dn + dr));
  Matrix o = Matrix::Zero(n, s.heads * dv);
  for (int h = 0; h < s.heads; ++h)
    for (int i = 0; i < n; ++i) {
      std::vector<double> p(static_cast<std::size_t>(i + 1));
      double max = -1e300, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double dot = 0;
        for (int d = 0; d < dn; ++d) dot += q(i, h * (dn + dr) + d) * kvb(j, h * (dn + dv) + d);
        for (int d = 0; d < dr; ++d) dot += q(i, h * (dn + dr) + dn + d) * kpe(j, d);
        p[static_cast<std::size_t>(j)] = dot * scale;
        max = std::max(max, dot * scale);
      }
      for (auto& v : p) sum += v = std::exp(v - max);
      for (int j = 0; j <= i; ++j)
        for (int d = 0; d < dv; ++d)
          o(i, h * dv + d) += static_cast<float>(p[static_cast<std::size_t>(j)] / sum * kvb(j, h * (dn + dv) + dn + d));
    }
  const Matrix want = o * w.wo.transpose();
  EXPECT_LE(test::max_relative_difference(got, want), 1e-5);
  EXPECT_EQ(cache.layer(0).a.rows(), n);  // the latent cache holds kv_lora_rank per position
  EXPECT_EQ(cache.layer(0).a.cols(), s.mla.kv_lora_rank);
  EXPECT_EQ(cache.layer(0).b.cols(), dr);
}

}  // namespace
}  // namespace moesim::models::functional
