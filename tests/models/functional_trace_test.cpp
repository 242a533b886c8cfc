// Routing traces from the functional decoder: the step structure (one prefill step, then one
// decode step per new token), round trip through the file format, and the trace statistics
// against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "functional_test_support.h"
#include "models/functional/trace_generation.h"
#include "models/functional/weights_random.h"
#include "models/model_error.h"
#include "models/routing_trace_stats.h"

namespace moesim::models::functional {
namespace {

TEST(TraceGeneration, OnePrefillStepThenOneDecodeStepPerToken) {
  const ModelSpec spec = test::tiny_mla();
  Decoder d(spec, random_weights(spec));
  const std::vector<std::vector<int>> prompts = {{1, 2, 3, 4, 5}, {6, 7, 8}};
  const Generation g = generate_trace(d, prompts, {4, 0.0, 1});
  const auto& t = g.trace;
  EXPECT_EQ(t.header.moe_layers, 2);
  EXPECT_EQ(t.header.experts, 12);
  EXPECT_EQ(t.header.top_k, 3);
  EXPECT_TRUE(t.header.has_weights);
  EXPECT_EQ(t.header.model, "test-mla");
  ASSERT_EQ(t.steps.size(), 4u);
  EXPECT_EQ(t.steps[0].tokens, 8);
  for (std::size_t s = 1; s < 4; ++s) EXPECT_EQ(t.steps[s].tokens, 2);
  EXPECT_EQ(g.prefill_tokens, 8);
  EXPECT_EQ(g.decode_tokens, 6);
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.outputs[0].size(), 4u);
  EXPECT_EQ(d.sequence_length(0), 5 + 3);  // the last sampled token is not fed back

  // The recorded routing is the decoder's: replay the same prompts on a fresh decoder.
  Decoder again(spec, random_weights(spec));
  const ForwardResult first =
      again.forward(std::vector<BatchEntry>{{again.add_sequence(), prompts[0]}, {again.add_sequence(), prompts[1]}});
  for (int l = 0; l < 2; ++l) {
    const auto ids = t.layer_ids(0, l);
    ASSERT_EQ(ids.size(), 8u * 3);
    for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], first.routing[static_cast<std::size_t>(l)].ids[i]);
  }
  // DeepSeek-style weights: renormalised, times routed_scaling 2.5.
  double sum = 0;
  for (int k = 0; k < 3; ++k) sum += t.layer_weights(2, 1)[static_cast<std::size_t>(k)];
  EXPECT_NEAR(sum, 2.5, 1e-5);

  std::stringstream file;
  write_routing_trace(file, t);
  const RoutingTrace back = read_routing_trace(file, "t.trace");
  ASSERT_EQ(back.steps.size(), 4u);
  for (std::size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(back.steps[s].ids, t.steps[s].ids);
    EXPECT_EQ(back.steps[s].weights, t.steps[s].weights);
  }
}

TEST(TraceGeneration, SeededSamplingIsReproducible) {
  const ModelSpec spec = test::tiny_gqa();
  const auto run = [&](std::uint64_t seed) {
    Decoder d(spec, random_weights(spec));
    return generate_trace(d, {{3, 1, 4, 1, 5}}, {12, 1.0, seed}).outputs[0];
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST(TraceGeneration, RejectsDenseModelsAndEmptyPrompts) {
  ModelSpec dense = test::tiny_gqa();
  dense.routed_experts = 0;
  Decoder d(dense, random_weights(dense));
  EXPECT_THROW(generate_trace(d, {{1}}, {}), ModelError);
  const ModelSpec spec = test::tiny_gqa();
  Decoder m(spec, random_weights(spec));
  try {
    generate_trace(m, {{1}, {}}, {});
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "prompt 2 is empty");
  }
}

// A hand-made trace: 1 layer, 4 experts, top-2, three steps.
//   step 0: tokens (0,1) (0,1) (2,3)    step 1: (0,2)    step 2: (0,1) (0,3)
TEST(TraceStats, LoadPairsAndStabilityByHand) {
  RoutingTrace t;
  t.header = {1, 4, 2, false, "hand"};
  const auto step = [](std::vector<std::uint16_t> ids) {
    RoutingTraceStep s;
    s.tokens = static_cast<std::int64_t>(ids.size() / 2);
    s.ids = std::move(ids);
    return s;
  };
  t.steps = {step({0, 1, 0, 1, 2, 3}), step({0, 2}), step({0, 1, 0, 3})};
  const TraceStats st = trace_stats(t);
  EXPECT_EQ(st.tokens, 6);
  const LayerTraceStats& s = st.layers[0];
  EXPECT_EQ(s.load, (std::vector<std::int64_t>{5, 3, 2, 2}));
  const double mean = 3;
  EXPECT_NEAR(s.imbalance, (5 - mean) / mean, 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt((4.0 + 0 + 1 + 1) / 4) / mean, 1e-12);
  EXPECT_EQ(s.hottest, 0);
  EXPECT_NEAR(s.hottest_share, 5.0 / 12, 1e-12);
  // Pairs: (0,1) ×3, (2,3), (0,2), (0,3). p = (5, 3, 2, 2) / 12; Σ_{i<j} p_i p_j = (1 − Σp²) / 2.
  EXPECT_EQ(s.pairs, 6);
  EXPECT_EQ(s.top_pair_a, 0);
  EXPECT_EQ(s.top_pair_b, 1);
  EXPECT_EQ(s.top_pair_count, 3);
  const double p[] = {5 / 12.0, 3 / 12.0, 2 / 12.0, 2 / 12.0};
  const double norm = (1 - (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3])) / 2;
  const auto e = [&](int i, int j) { return 6 * p[i] * p[j] / norm; };
  EXPECT_NEAR(s.top_pair_expected, e(0, 1), 1e-12);
  const double tv = (std::abs(3 - e(0, 1)) + std::abs(1 - e(0, 2)) + std::abs(1 - e(0, 3)) + std::abs(0 - e(1, 2)) +
                     std::abs(0 - e(1, 3)) + std::abs(1 - e(2, 3))) /
                    2 / 6;
  EXPECT_NEAR(s.pair_tv, tv, 1e-12);
  // Step loads: (2,2,1,1), (1,0,1,0), (2,1,0,1). Hot sets (above the step mean): {0,1}, {0,2},
  // {0}: Jaccard 1/3 and 1/2.
  EXPECT_EQ(s.step_pairs, 2);
  EXPECT_NEAR(s.hot_overlap, (1.0 / 3 + 0.5) / 2, 1e-12);
  // Pearson: (2,2,1,1)·(1,0,1,0) → 0; (1,0,1,0)·(2,1,0,1) → 0.
  const auto pearson = [](std::vector<double> a, std::vector<double> b) {
    double ma = 0, mb = 0;
    for (int i = 0; i < 4; ++i) ma += a[i] / 4, mb += b[i] / 4;
    double ab = 0, aa = 0, bb = 0;
    for (int i = 0; i < 4; ++i)
      ab += (a[i] - ma) * (b[i] - mb), aa += (a[i] - ma) * (a[i] - ma), bb += (b[i] - mb) * (b[i] - mb);
    return ab / std::sqrt(aa * bb);
  };
  EXPECT_EQ(s.correlated_pairs, 2);
  EXPECT_NEAR(s.load_correlation, (pearson({2, 2, 1, 1}, {1, 0, 1, 0}) + pearson({1, 0, 1, 0}, {2, 1, 0, 1})) / 2,
              1e-12);
}

}  // namespace
}  // namespace moesim::models::functional
