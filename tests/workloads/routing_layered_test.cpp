// The layered-lognormal routing model's mechanics (its fit to measured statistics is checked in
// tests/sim/routing_measured_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "workloads/routing_model.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

RoutingShape deepseek_shape() {
  RoutingShape s;
  s.experts = 256;
  s.moe_layers = 58;
  s.top_k = 8;
  return s;
}

std::unique_ptr<RoutingModel> layered(std::uint64_t seed = 5) {
  RoutingConfig c;
  c.model = workloads::RoutingModelKind::kLayeredLognormal;
  return make_routing_model(c, deepseek_shape(), seed);
}

TEST(LayeredRouting, GivesADistributionCappedAtOneOverTopK) {
  const auto m = layered();
  std::vector<double> p(256);
  for (int l = 0; l < 58; l += 7)
    for (std::int64_t t : {0, 15, 16, 1000}) {
      m->expert_distribution(l, t, p);
      EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-12);
      EXPECT_LE(*std::max_element(p.begin(), p.end()), 1.0 / 8 + 1e-12);
      EXPECT_GT(*std::min_element(p.begin(), p.end()), 0.0);
    }
  EXPECT_FALSE(m->is_step_invariant());
}

// Any step of any layer may be asked for in any order (instances run at different step counts):
// the answer is a function of (seed, layer, step) alone.
TEST(LayeredRouting, AnswersAreIndependentOfTheOrderOfQuestions) {
  const auto a = layered(), b = layered();
  std::vector<double> p(256), q(256);
  for (std::int64_t t = 0; t < 1000; t += 37) a->expert_distribution(3, t, p);
  for (std::int64_t t : {999, 0, 420, 421, 5000, 17}) {
    a->expert_distribution(3, t, p);
    const auto fresh = layered();
    fresh->expert_distribution(3, t, q);
    EXPECT_EQ(p, q) << t;
  }
  a->expert_distribution(4, 100, p);
  b->expert_distribution(4, 100, q);
  EXPECT_EQ(p, q);
  // Popularity is piecewise constant over step_interval (16) steps, and other seeds differ.
  a->expert_distribution(4, 96, q);
  EXPECT_EQ(p, q);
  layered(6)->expert_distribution(4, 100, q);
  EXPECT_NE(p, q);
}

TEST(LayeredRouting, WithoutDriftItIsStepInvariant) {
  RoutingConfig c;
  c.model = workloads::RoutingModelKind::kLayeredLognormal;
  c.step_sigma = 0;
  const auto m = make_routing_model(c, deepseek_shape(), 1);
  EXPECT_TRUE(m->is_step_invariant());
  std::vector<double> p(256), q(256);
  m->expert_distribution(2, 0, p);
  m->expert_distribution(2, 12345, q);
  EXPECT_EQ(p, q);
}

TEST(LayeredRouting, RejectsParametersOutOfRange) {
  RoutingConfig c;
  c.model = workloads::RoutingModelKind::kLayeredLognormal;
  c.step_memory = 0;
  try {
    make_routing_model(c, deepseek_shape(), 1);
    FAIL();
  } catch (const WorkloadError& e) {
    EXPECT_STREQ(e.what(), "layered-lognormal routing needs step_memory >= 1");
  }
  c.step_memory = 10;
  c.layer_sigma = -1;
  EXPECT_THROW(make_routing_model(c, deepseek_shape(), 1), WorkloadError);
}

}  // namespace
}  // namespace moesim::workloads
