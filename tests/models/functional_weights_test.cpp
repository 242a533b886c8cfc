// Random weights are deterministic and their knobs shape routing as documented; check_weights
// names the tensor that does not fit; sampling is greedy or seeded.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "functional_test_support.h"
#include "models/functional/decoder.h"
#include "models/functional/router.h"
#include "models/functional/sampling.h"
#include "models/functional/weight_slots.h"
#include "models/functional/weights_random.h"
#include "models/layer_ops.h"
#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

TEST(FunctionalWeights, SameSeedSameBitsOtherSeedOtherBits) {
  const ModelSpec s = test::tiny_mla();
  const DecoderWeights a = random_weights(s, {42, 1.0, 0.5}), b = random_weights(s, {42, 1.0, 0.5});
  const DecoderWeights c = random_weights(s, {43, 1.0, 0.5});
  EXPECT_EQ(a.embed, b.embed);
  EXPECT_EQ(a.layers[2].moe.experts[5].down, b.layers[2].moe.experts[5].down);
  EXPECT_EQ(a.layers[1].moe.logit_bias, b.layers[1].moe.logit_bias);
  EXPECT_NE(a.layers[2].moe.experts[5].down, c.layers[2].moe.experts[5].down);
  // Each tensor has its own stream: two experts of one layer differ.
  EXPECT_NE(a.layers[2].moe.experts[5].down, a.layers[2].moe.experts[6].down);
  EXPECT_EQ(a.layers[0].attn_norm, Vector::Ones(s.hidden));
  EXPECT_EQ(a.layers[1].moe.score_bias, Vector::Zero(s.routed_experts));
}

TEST(FunctionalWeights, ParameterCountMatchesTheSlotsAndTheCostModel) {
  const ModelSpec s = test::tiny_gqa();
  DecoderWeights w = random_weights(s);
  std::int64_t allocated = 0;
  for (const WeightSlot& slot : weight_slots(s, w))
    allocated += slot.matrix ? slot.matrix->size() : slot.vector->size();
  EXPECT_EQ(decoder_parameters(s), allocated);
  // count_parameters (models/layer_ops.h) leaves norms out; the rest is the same matrices.
  const std::int64_t norms = s.num_layers * 2 * s.hidden + s.hidden;
  EXPECT_EQ(decoder_parameters(s), count_parameters(s).total() + norms);
}

// Router logits of RMS-normalised inputs have the standard deviation the knob asks for.
TEST(FunctionalWeights, RouterLogitStdIsTheKnob) {
  ModelSpec s = test::tiny_gqa();
  s.hidden = 256;
  for (double std : {0.5, 2.0}) {
    const DecoderWeights w = random_weights(s, {3, std, 0.0});
    Matrix x(200, s.hidden);
    for (int r = 0; r < 200; ++r)
      for (int c = 0; c < s.hidden; ++c) x(r, c) = (r * 31 + c * 17) % 7 < 3 ? 1.0f : -1.0f;  // RMS 1
    const Matrix logits = x * w.layers[1].moe.router.transpose();
    const double mean = logits.mean();
    const double var = (logits.array() - mean).square().mean();
    EXPECT_NEAR(std::sqrt(var) / std, 1.0, 0.1) << std;
  }
}

// A larger expert-bias spread makes some experts hot: the load's coefficient of variation over
// many tokens grows.
TEST(FunctionalWeights, ExpertBiasSpreadMakesHotExperts) {
  const ModelSpec s = test::tiny_gqa();
  const auto load_cv = [&](double bias_std) {
    Decoder d(s, random_weights(s, {5, 1.0, bias_std}));
    const int seq = d.add_sequence();
    std::vector<int> prompt;
    for (int i = 0; i < 400; ++i) prompt.push_back((i * 53 + 7) % s.vocab);
    const Routing r = d.forward(std::vector<BatchEntry>{{seq, prompt}}).routing[0];
    std::vector<double> load(static_cast<std::size_t>(s.routed_experts), 0);
    for (int id : r.ids) load[static_cast<std::size_t>(id)] += 1;
    const double mean = 400.0 * s.top_k / s.routed_experts;
    double var = 0;
    for (double l : load) var += (l - mean) * (l - mean) / s.routed_experts;
    return std::sqrt(var) / mean;
  };
  const double flat = load_cv(0.0), hot = load_cv(3.0);
  EXPECT_LT(flat, 0.5);
  EXPECT_GT(hot, flat * 1.5);
}

TEST(FunctionalWeights, CheckWeightsNamesTheMisfit) {
  const ModelSpec s = test::tiny_gqa();
  DecoderWeights w = random_weights(s);
  w.layers[2].moe.experts[3].up.resize(31, s.hidden);
  try {
    Decoder d(s, w);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "weights: layer 2 expert 3 expert.up: shape [31, 64], expected [32, 64]");
  }
  w = random_weights(s);
  w.final_norm = Vector();
  try {
    Decoder d(s, w);
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "weights: final_norm: missing, expected [64]");
  }
}

TEST(FunctionalSampling, GreedyAndSeededTemperature) {
  Eigen::RowVectorXf logits(4);
  logits << 0.0f, 2.0f, 1.0f, 2.0f;
  Sampler greedy(0, 1);
  EXPECT_EQ(greedy.sample(logits), 1);  // ties go to the lower id
  Sampler a(1.0, 9), b(1.0, 9);
  std::vector<int> counts(4, 0);
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const int t = a.sample(logits);
    EXPECT_EQ(t, b.sample(logits));
    ++counts[static_cast<std::size_t>(t)];
  }
  const double z = 1 + 2 * std::exp(2.0) + std::exp(1.0);
  const double p[] = {1 / z, std::exp(2.0) / z, std::exp(1.0) / z, std::exp(2.0) / z};
  for (int i = 0; i < 4; ++i) {
    const double sd = std::sqrt(draws * p[i] * (1 - p[i]));
    EXPECT_NEAR(counts[static_cast<std::size_t>(i)], draws * p[i], 5 * sd) << i;
  }
}

}  // namespace
}  // namespace moesim::models::functional
