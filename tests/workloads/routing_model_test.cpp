#include "workloads/routing_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace moesim::workloads {
namespace {

// Pearson χ² of observed counts against n·probs (probs normalised here).
double chi_square(const std::vector<std::int64_t>& counts, const std::vector<double>& probs) {
  const double mass = std::accumulate(probs.begin(), probs.end(), 0.0);
  const double n = static_cast<double>(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
  double chi2 = 0;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    const double e = n * probs[i] / mass;
    const double d = static_cast<double>(counts[i]) - e;
    chi2 += d * d / e;
  }
  return chi2;
}

// Upper α = 0.001 critical values of χ² (standard tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4).
constexpr double kChi2Crit15 = 37.697;  // 15 degrees of freedom
constexpr double kChi2Crit7 = 24.322;   // 7 degrees of freedom

TEST(UniformRouting, DistributionIsUniformAndSumsToOne) {
  RoutingConfig cfg;
  cfg.model = "uniform";
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
  RoutingConfig cfg;
  cfg.model = "zipf-typo";
  try {
    make_routing_model(cfg, 16);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("zipf-typo"), std::string::npos) << msg;
    for (const auto& entry : routing_models()) EXPECT_NE(msg.find(entry.name), std::string::npos) << msg;
  }
}

TEST(RoutingRegistry, EveryListedModelConstructs) {
  for (const auto& entry : routing_models()) {
    RoutingConfig cfg;
    cfg.model = std::string(entry.name);
    EXPECT_NE(make_routing_model(cfg, 8), nullptr) << entry.name;
    EXPECT_FALSE(entry.description.empty());
  }
  EXPECT_THROW(make_routing_model(RoutingConfig{}, 0), std::invalid_argument);
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
