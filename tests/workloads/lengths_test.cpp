#include "workloads/lengths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "test_files.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

struct LengthMoments {
  double mean = 0, sd = 0;
  std::int64_t min = 0, max = 0;
};

LengthMoments draw(const LengthConfig& c, int n, std::uint64_t seed) {
  LengthSampler s(c);
  Rng rng = make_stream(seed, "lengths");
  double sum = 0, sum2 = 0;
  LengthMoments m;
  m.min = INT64_MAX;
  for (int i = 0; i < n; ++i) {
    const auto x = s(rng);
    sum += static_cast<double>(x);
    sum2 += static_cast<double>(x) * static_cast<double>(x);
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / n;
  m.sd = std::sqrt(sum2 / n - m.mean * m.mean);
  return m;
}

TEST(LognormalLengths, MeanIsTheConfiguredMean) {
  LengthConfig c;
  c.dist = LengthDist::kLognormal;
  c.mean = 2000;
  c.sigma = 0.5;
  const int n = 200'000;
  const auto m = draw(c, n, 1);
  // sd of a lognormal with this mean: mean · sqrt(e^{σ²} − 1) ≈ 1064; 5 standard errors.
  const double sd = 2000 * std::sqrt(std::exp(0.25) - 1);
  EXPECT_NEAR(m.mean, 2000, 5 * sd / std::sqrt(n));
  EXPECT_NEAR(m.sd, sd, 0.03 * sd);
  EXPECT_GE(m.min, 1);
}

TEST(NormalLengths, TruncatedAtOneToken) {
  LengthConfig c;
  c.dist = LengthDist::kNormal;
  c.mean = 3;
  c.stddev = 10;
  const auto m = draw(c, 50'000, 2);
  EXPECT_GE(m.min, 1);
  EXPECT_GT(m.mean, 3);  // truncation below 1 moves the mean up
  c.mean = 500;
  c.stddev = 50;
  const auto big = draw(c, 50'000, 3);
  EXPECT_NEAR(big.mean, 500, 1.5);
  EXPECT_NEAR(big.sd, 50, 1.5);
}

TEST(UniformLengths, StayInBoundsAndCoverThem) {
  LengthConfig c;
  c.dist = LengthDist::kUniform;
  c.min = 10;
  c.max = 20;
  const auto m = draw(c, 20'000, 4);
  EXPECT_EQ(m.min, 10);
  EXPECT_EQ(m.max, 20);
  EXPECT_NEAR(m.mean, 15, 0.1);
}

TEST(FixedLengths, ClampedToMax) {
  LengthConfig c{LengthDist::kFixed, 500};
  EXPECT_EQ(draw(c, 10, 5).max, 500);
  c.max = 300;
  EXPECT_EQ(draw(c, 10, 5).max, 300);
}

TEST(EmpiricalLengths, ResamplesWeightedValues) {
  testing::TempFile f(".txt", "# lengths\n100,3\n\n200,1\n");
  LengthConfig c;
  c.dist = LengthDist::kEmpirical;
  c.path = f.path();
  const auto m = draw(c, 40'000, 6);
  EXPECT_EQ(m.min, 100);
  EXPECT_EQ(m.max, 200);
  EXPECT_NEAR(m.mean, 125, 1.5);  // 0.75·100 + 0.25·200
}

TEST(EmpiricalLengths, BadLineNamesFileAndLine) {
  testing::TempFile f(".txt", "100\n200\nabc\n");
  try {
    read_empirical_lengths(f.path());
    FAIL() << "expected WorkloadError";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find(f.path() + ":3:"), std::string::npos) << e.what();
  }
  testing::TempFile empty(".txt", "# nothing\n");
  EXPECT_THROW(read_empirical_lengths(empty.path()), WorkloadError);
  EXPECT_THROW(read_empirical_lengths("/nonexistent/lengths.txt"), WorkloadError);
}

TEST(LengthSampler, BadParametersThrow) {
  LengthConfig c;
  c.dist = LengthDist::kLognormal;
  EXPECT_THROW(LengthSampler{c}, WorkloadError);  // mean 0
  c.dist = LengthDist::kUniform;
  c.min = 5;
  c.max = 2;
  EXPECT_THROW(LengthSampler{c}, WorkloadError);
  EXPECT_THROW(length_distribution("pareto"), WorkloadError);
}

}  // namespace
}  // namespace moesim::workloads
