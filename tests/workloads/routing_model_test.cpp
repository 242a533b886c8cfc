#include "workloads/routing_model.h"

#include <gtest/gtest.h>

#include "tests/workloads/stats_support.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

using test::chi_square;  // Pearson χ² of counts against n·probs

// Upper α = 0.001 critical values of χ² (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
constexpr double kChi2Crit15 = 37.697;  // 15 degrees of freedom
constexpr double kChi2Crit7 = 24.322;   // 7 degrees of freedom

TEST(UniformRouting, DistributionIsUniformAndSumsToOne) {
  RoutingConfig cfg;
  cfg.model = workloads::RoutingModelKind::kUniform;
  for (int experts : {1, 16, 256}) {
    const auto model = make_routing_model(cfg, experts);
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->is_static());
    std::vector<double> probs(static_cast<std::size_t>(experts), -1.0);
    model->expert_distribution(0, 0, probs);
    EXPECT_NEAR(std::accumulate(probs.begin(), probs.end(), 0.0), 1.0, 1e-12) << experts;
    for (double p : probs) EXPECT_DOUBLE_EQ(p, 1.0 / experts);
  }
}

TEST(RoutingRegistry, UnknownModelThrowsListingValidNames) {
  try {
    routing_model_kind("zipf-typo");
    FAIL() << "expected WorkloadError";
  } catch (const WorkloadError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown routing model 'zipf-typo' (valid: uniform, zipf, hot-set, dirichlet-drift, "
                 "layered-lognormal, group-limited, trace)");
  }
}

TEST(RoutingRegistry, NamesAndKindsRoundTrip) {
  const auto entries = routing_models();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(routing_model_kind(entries[i].name)), i) << entries[i].name;
    EXPECT_EQ(to_string(static_cast<RoutingModelKind>(i)), entries[i].name);
  }
  EXPECT_EQ(to_string(RoutingModelKind::kGroupLimited), "group-limited");
  EXPECT_EQ(to_string(RoutingModelKind::kLayeredLognormal), "layered-lognormal");
}

TEST(RoutingRegistry, EveryListedModelConstructs) {
  for (const auto& entry : routing_models()) {
    RoutingConfig cfg;
    cfg.model = routing_model_kind(entry.name);
    EXPECT_FALSE(entry.description.empty());
    if (entry.name == "trace") {  // needs a file: tests/workloads/routing_sampler_test.cpp
      EXPECT_THROW(make_routing_model(cfg, 8), WorkloadError);
      continue;
    }
    EXPECT_NE(make_routing_model(cfg, 8), nullptr) << entry.name;
  }
  EXPECT_THROW(make_routing_model(RoutingConfig{}, 0), WorkloadError);
}

std::vector<double> distribution(const RoutingModel& m, int layer, std::int64_t step, int experts) {
  std::vector<double> p(static_cast<std::size_t>(experts));
  m.expert_distribution(layer, step, p);
  return p;
}

TEST(ZipfRouting, RankedPopularityPermutedPerLayer) {
  RoutingConfig cfg;
  cfg.model = workloads::RoutingModelKind::kZipf;
  cfg.s = 1.0;
  RoutingShape shape;
  shape.experts = 64;
  const auto m = make_routing_model(cfg, shape, 5);
  EXPECT_FALSE(m->is_static());
  EXPECT_TRUE(m->is_step_invariant());
  auto p0 = distribution(*m, 0, 0, 64), p1 = distribution(*m, 1, 0, 64);
  EXPECT_NEAR(std::accumulate(p0.begin(), p0.end(), 0.0), 1.0, 1e-12);
  EXPECT_NE(p0, p1);                                                          // another order per layer
  EXPECT_EQ(p0, distribution(*m, 0, 99, 64));                                 // static over steps
  EXPECT_EQ(p0, distribution(*make_routing_model(cfg, shape, 5), 0, 0, 64));  // same seed
  std::sort(p0.begin(), p0.end(), std::greater<>());
  std::sort(p1.begin(), p1.end(), std::greater<>());
  EXPECT_EQ(p0, p1);                       // same ranked weights
  EXPECT_NEAR(p0[0] / p0[9], 10.0, 1e-9);  // 1/rank^s
  // With top-8, no expert can take more than 1/8 of the assignments: the excess is spread.
  shape.experts = 256;
  shape.top_k = 8;
  auto capped = distribution(*make_routing_model(cfg, shape, 5), 0, 0, 256);
  std::sort(capped.begin(), capped.end(), std::greater<>());
  EXPECT_NEAR(capped[0], 0.125, 1e-12);
  EXPECT_NEAR(std::accumulate(capped.begin(), capped.end(), 0.0), 1.0, 1e-12);
  EXPECT_NEAR(capped[1] / capped[9], 5.0, 1e-9);  // uncapped experts keep their ratios
}

TEST(HotSetRouting, HotExpertsCarryTheirFraction) {
  RoutingConfig cfg;
  cfg.model = workloads::RoutingModelKind::kHotSet;
  cfg.hot_experts = 4;
  cfg.hot_fraction = 0.6;
  RoutingShape shape;
  shape.experts = 32;
  auto p = distribution(*make_routing_model(cfg, shape, 1), 3, 0, 32);
  std::sort(p.begin(), p.end(), std::greater<>());
  EXPECT_NEAR(p[0] + p[1] + p[2] + p[3], 0.6, 1e-12);
  EXPECT_NEAR(p[4], 0.4 / 28, 1e-12);
  cfg.hot_fraction = 1.5;
  EXPECT_THROW(make_routing_model(cfg, shape, 1), WorkloadError);
}

TEST(DriftRouting, AutocorrelationFollowsRho) {
  RoutingConfig cfg;
  cfg.model = workloads::RoutingModelKind::kDirichletDrift;
  cfg.alpha = 5.0;
  cfg.drift_rho = 0.9;
  cfg.drift_sigma = 0.5;
  RoutingShape shape;
  shape.experts = 256;
  const auto m = make_routing_model(cfg, shape, 7);
  EXPECT_FALSE(m->is_step_invariant());
  // Correlation of the logit deviations between steps t and t + h is rho^h: estimate it over
  // experts from log-probabilities (softmax shifts all logits equally, which centring removes).
  auto logits = [&](std::int64_t step) {
    auto p = distribution(*m, 2, step, 256);
    std::vector<double> x(p.size());
    double mean = 0;
    for (std::size_t e = 0; e < p.size(); ++e) mean += x[e] = std::log(p[e]);
    for (auto& v : x) v -= mean / static_cast<double>(x.size());
    return x;
  };
  const auto a = logits(1000), b = logits(1001), c = logits(1010), base = logits(0);
  auto corr_of_change = [&](const std::vector<double>& u, const std::vector<double>& v) {
    // Changes relative to a far-away step are independent; compare u - v variance to 2σ²(1 − ρ^h).
    double ss = 0;
    for (std::size_t e = 0; e < u.size(); ++e) ss += (u[e] - v[e]) * (u[e] - v[e]);
    return ss / static_cast<double>(u.size());
  };
  EXPECT_NEAR(corr_of_change(a, b), 2 * 0.25 * (1 - 0.9), 0.02);
  EXPECT_NEAR(corr_of_change(a, c), 2 * 0.25 * (1 - std::pow(0.9, 10)), 0.1);
  EXPECT_EQ(logits(1000), a);  // replaying an earlier step reproduces it
  (void)base;
}

TEST(GroupLimitedRouting, KeepsBaseMarginalsAndReportsLimit) {
  RoutingConfig cfg;
  cfg.model = workloads::RoutingModelKind::kGroupLimited;
  cfg.base = workloads::RoutingModelKind::kZipf;
  RoutingShape shape;
  shape.experts = 64;
  shape.expert_groups = 8;
  shape.top_groups = 4;
  const auto m = make_routing_model(cfg, shape, 3);
  ASSERT_TRUE(m->group_limit());
  EXPECT_EQ(m->group_limit()->groups, 8);
  EXPECT_EQ(m->group_limit()->top_groups, 4);
  cfg.model = workloads::RoutingModelKind::kZipf;
  EXPECT_EQ(distribution(*m, 1, 0, 64), distribution(*make_routing_model(cfg, shape, 3), 1, 0, 64));
  cfg.group_limit.enabled = true;
  cfg.group_limit.groups = 7;  // 64 experts do not split into 7 groups
  EXPECT_THROW(make_routing_model(cfg, shape, 3), WorkloadError);
}

TEST(Multinomial, CountsSumToNAndPassChiSquare) {
  // Unnormalised, unequal weights 1..16 over 16 categories.
  std::vector<double> probs(16);
  std::iota(probs.begin(), probs.end(), 1.0);
  Rng rng = make_stream(42, "multinomial");
  const std::int64_t n = 1'000'000;
  std::vector<std::int64_t> counts(16, 0);
  sample_multinomial(n, probs, rng, counts);
  EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}), n);
  EXPECT_LT(chi_square(counts, probs), kChi2Crit15);
}

TEST(Multinomial, ManySmallDrawsPassChiSquare) {
  // Decode-sized draws (64 tokens × top-8) take the inversion path of every binomial; their sum
  // is again multinomial.
  const std::vector<double> probs{0.3, 0.05, 0.2, 0.1, 0.1, 0.05, 0.15, 0.05};
  Rng rng = make_stream(43, "multinomial");
  std::vector<std::int64_t> total(probs.size(), 0);
  double chi2_sum = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    std::vector<std::int64_t> one(probs.size(), 0);
    sample_multinomial(512, probs, rng, one);
    ASSERT_EQ(std::accumulate(one.begin(), one.end(), std::int64_t{0}), 512);
    chi2_sum += chi_square(one, probs);
    for (std::size_t k = 0; k < one.size(); ++k) total[k] += one[k];
  }
  EXPECT_LT(chi_square(total, probs), kChi2Crit7);
  // Dispersion: Pearson's statistic of a multinomial draw has expectation exactly k − 1 = 7 and
  // variance ≈ 2(k − 1); a sampler that is too regular (or too noisy) moves the mean.
  EXPECT_NEAR(chi2_sum / draws, 7.0, 5 * std::sqrt(14.0 / draws));
}

TEST(Multinomial, ZeroProbabilityCategoriesGetNothing) {
  const std::vector<double> probs{0.0, 0.5, 0.0, 0.5, 0.0};
  Rng rng = make_stream(44, "multinomial");
  for (int i = 0; i < 1000; ++i) {
    std::vector<std::int64_t> c(probs.size(), 0);
    sample_multinomial(100, probs, rng, c);
    EXPECT_EQ(c[0] + c[2] + c[4], 0);
    EXPECT_EQ(c[1] + c[3], 100);
  }
}

TEST(Multinomial, AddsToExistingCountsAndZeroMassDrawsNothing) {
  Rng rng = make_stream(45, "multinomial");
  std::vector<std::int64_t> c{10, 20};
  sample_multinomial(30, std::vector<double>{1.0, 1.0}, rng, c);
  EXPECT_EQ(c[0] + c[1], 60);
  EXPECT_GE(c[0], 10);
  EXPECT_GE(c[1], 20);
  std::vector<std::int64_t> z{0, 0};
  sample_multinomial(30, std::vector<double>{0.0, 0.0}, rng, z);
  EXPECT_EQ(z[0] + z[1], 0);
  sample_multinomial(0, std::vector<double>{1.0, 1.0}, rng, z);
  EXPECT_EQ(z[0] + z[1], 0);
}

}  // namespace
}  // namespace moesim::workloads
