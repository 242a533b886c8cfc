// The functional decoder against an independent naive reference (functional_reference.h): the
// same logits and the same experts at every position, for a whole prompt at once and for a
// prompt continued in chunks and single tokens beside another sequence, on tiny GQA and MLA
// models with full, sliding-window and chunked attention.
//
// Tolerance: the decoder computes in float32 and the reference in double; over three layers of
// width 64 they agree to within 1e-6 of the logits' scale (7e-7 the largest difference in these
// cases), and 1e-5 leaves room for other compilers and optimisation levels. A mask one position
// too wide moves the logits by far more (0.4 to 1.1 of their scale here): each windowed case also
// checks that a reference widened by one position is at least 20 tolerances away.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "functional_reference.h"
#include "functional_test_support.h"
#include "models/functional/decoder.h"
#include "models/functional/weights_random.h"

namespace moesim::models::functional {
namespace {

constexpr double kTolerance = 1e-5;

std::vector<int> reference_tokens(int n, int vocab, int salt) {
  std::vector<int> t;
  for (int i = 0; i < n; ++i) t.push_back((i * 29 + salt * 13 + 3) % vocab);
  return t;
}

// random_weights leaves norms at one, sinks and score-correction biases at zero; give them
// distinct values so that a reference or decoder ignoring one of them shows.
void vary(Vector& v, double base, double amplitude, int salt) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    v(i) = static_cast<float>(base + amplitude * std::sin(0.7 * static_cast<double>(i) + salt));
}
DecoderWeights varied_weights(const ModelSpec& spec, std::uint64_t seed) {
  DecoderWeights w = random_weights(spec, {seed, 1.0, 0.5});
  int salt = 0;
  for (LayerWeights& l : w.layers) {
    for (Vector* v : {&l.attn_norm, &l.mlp_norm, &l.gqa.q_norm, &l.gqa.k_norm, &l.mla.q_a_norm, &l.mla.kv_a_norm})
      vary(*v, 1.0, 0.3, ++salt);
    vary(l.gqa.sinks, 0.0, 1.5, ++salt);
    vary(l.moe.score_bias, 0.0, 0.05, ++salt);
  }
  vary(w.final_norm, 1.0, 0.3, ++salt);
  return w;
}

// max |a - b| / max |b|.
double difference(const Matrix& a, const Eigen::MatrixXd& b) {
  return (a.cast<double>() - b).cwiseAbs().maxCoeff() / std::max(1e-30, b.cwiseAbs().maxCoeff());
}

void expect_same_experts(const std::vector<Routing>& got, const std::vector<std::vector<int>>& expected, int first_pos,
                         int positions, const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t l = 0; l < got.size(); ++l) {
    const int k = got[l].top_k;
    for (int i = 0; i < positions * k; ++i)
      EXPECT_EQ(got[l].ids[static_cast<std::size_t>(i)], expected[l][static_cast<std::size_t>(first_pos * k + i)])
          << what << ": MoE layer " << l << ", position " << first_pos + i / k;
  }
}

// Returns the decoder's logits for the whole prompt at once (to compare with wrong references).
Matrix expect_matches_reference(const ModelSpec& spec, std::uint64_t seed, int length) {
  const DecoderWeights w = varied_weights(spec, seed);
  const std::vector<int> a = reference_tokens(length, spec.vocab, static_cast<int>(seed)),
                         b = reference_tokens(length - 3, spec.vocab, 7);
  test::ReferenceDecoder ref_a(spec, w), ref_b(spec, w);
  const Eigen::MatrixXd want_a = ref_a.logits(a), want_b = ref_b.logits(b);

  // The whole prompt in one forward pass.
  Decoder whole(spec, w);
  const int s = whole.add_sequence();
  const ForwardResult all = whole.forward(std::vector<BatchEntry>{{s, a}}, true);
  EXPECT_LE(difference(all.logits, want_a), kTolerance) << spec.name << ", prefill";
  expect_same_experts(all.routing, ref_a.chosen, 0, length, spec.name + ", prefill");

  // Sequence a in chunks of 3, 1, 2, 1, 4, ... and b one token at a time after a 2-token prompt,
  // in the same batches: every row equals the reference's row of its position.
  Decoder steps(spec, w);
  const int sa = steps.add_sequence(), sb = steps.add_sequence();
  const int chunks[] = {3, 1, 2, 1, 4, 1, 2, 1, 3, 1, 2, 1};
  int pa = 0, pb = 0;
  for (int i = 0; pa < length; ++i) {
    const int n = std::min(chunks[i % 12], length - pa);
    std::vector<BatchEntry> batch{{sa, {a.begin() + pa, a.begin() + pa + n}}};
    const int nb = pb == 0 ? 2 : 1;
    if (pb + nb <= static_cast<int>(b.size())) batch.push_back({sb, {b.begin() + pb, b.begin() + pb + nb}});
    const ForwardResult r = steps.forward(batch, true);
    const std::string what = spec.name + ", step " + std::to_string(i);
    EXPECT_LE(difference(r.logits.topRows(n), want_a.middleRows(pa, n)), kTolerance) << what << ", sequence a";
    if (batch.size() == 2) {
      EXPECT_LE(difference(r.logits.middleRows(n, nb), want_b.middleRows(pb, nb)), kTolerance)
          << what << ", sequence b";
      pb += nb;
    }
    pa += n;
  }
  return all.logits;
}

// A reference whose local windows are one position wider is far outside the tolerance.
void expect_one_wider_window_is_caught(const ModelSpec& spec, std::uint64_t seed, int length, const Matrix& decoder) {
  const DecoderWeights w = varied_weights(spec, seed);
  test::ReferenceDecoder wider(spec, w, 1);
  const double d = difference(decoder, wider.logits(reference_tokens(length, spec.vocab, static_cast<int>(seed))));
  EXPECT_GT(d, 20 * kTolerance) << spec.name << ": a window one position wider moves the logits only by " << d;
}

TEST(FunctionalReference, GqaFullAttention) { expect_matches_reference(test::tiny_gqa(), 3, 12); }

TEST(FunctionalReference, GqaSlidingWindowWithSinksBiasesAndPerHeadNorms) {
  ModelSpec s = test::tiny_gqa();
  s.name = "gqa-sliding";
  s.window = {4, WindowKind::kSliding, 2};  // layers 0 and 2 read their last 4 positions, layer 1 all
  s.attention_sinks = true;
  s.qkv_bias = true;
  s.qk_norm = QkNorm::kPerHead;
  const Matrix logits = expect_matches_reference(s, 5, 14);
  expect_one_wider_window_is_caught(s, 5, 14, logits);
}

TEST(FunctionalReference, GqaChunkedWindowWithFullNormsSharedGateAndTiedEmbeddings) {
  ModelSpec s = test::tiny_gqa();
  s.name = "gqa-chunked";
  s.window = {5, WindowKind::kChunked, 0};  // every layer: chunks [0, 5), [5, 10), [10, 15)
  s.qk_norm = QkNorm::kFull;
  s.shared_expert_gate = true;
  s.tie_embeddings = true;
  s.norm_top_k = false;
  const Matrix logits = expect_matches_reference(s, 6, 14);
  expect_one_wider_window_is_caught(s, 6, 14, logits);
}

TEST(FunctionalReference, MlaWithYarnAndGroupLimitedSigmoidRouting) {
  expect_matches_reference(test::tiny_mla(), 8, 12);
}

TEST(FunctionalReference, MlaSlidingAndChunkedWindows) {
  ModelSpec s = test::tiny_mla();
  s.name = "mla-sliding";
  s.window = {3, WindowKind::kSliding, 3};  // layers 0 and 1 local, layer 2 full
  const Matrix sliding = expect_matches_reference(s, 9, 11);
  expect_one_wider_window_is_caught(s, 9, 11, sliding);
  s.name = "mla-chunked";
  s.window = {4, WindowKind::kChunked, 0};
  const Matrix chunked = expect_matches_reference(s, 10, 11);
  expect_one_wider_window_is_caught(s, 10, 11, chunked);
}

}  // namespace
}  // namespace moesim::models::functional
