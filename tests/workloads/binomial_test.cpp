#include "workloads/binomial.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace moesim::workloads {
namespace {

struct SampleMoments {
  double mean = 0;
  double var = 0;  // unbiased sample variance
  std::int64_t min = 0, max = 0;
};

SampleMoments sample(std::int64_t n, double p, int draws, std::uint64_t seed) {
  Rng rng = make_stream(seed, "binomial-test");
  double sum = 0, sum2 = 0;
  SampleMoments m;
  m.min = n;
  for (int i = 0; i < draws; ++i) {
    const std::int64_t x = sample_binomial(n, p, rng);
    sum += static_cast<double>(x);
    sum2 += static_cast<double>(x) * static_cast<double>(x);
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean = sum / draws;
  m.var = (sum2 - sum * sum / draws) / (draws - 1);
  return m;
}

// Checks the sample mean and variance of `draws` Binomial(n, p) draws against n·p and n·p·q,
// each within 5 standard errors. Var(mean) = σ²/N; Var(s²) ≈ (μ4 − σ⁴)/N with the binomial's
// central fourth moment μ4 = n·p·q·(1 + 3·(n − 2)·p·q).
void expect_binomial_moments(std::int64_t n, double p, int draws, std::uint64_t seed) {
  const double q = 1 - p;
  const double mean = static_cast<double>(n) * p;
  const double var = mean * q;
  const double mu4 = var * (1 + 3 * (static_cast<double>(n) - 2) * p * q);
  const SampleMoments m = sample(n, p, draws, seed);
  EXPECT_NEAR(m.mean, mean, 5 * std::sqrt(var / draws)) << "n=" << n << " p=" << p;
  EXPECT_NEAR(m.var, var, 5 * std::sqrt((mu4 - var * var) / draws)) << "n=" << n << " p=" << p;
  EXPECT_GE(m.min, 0);
  EXPECT_LE(m.max, n);
}

TEST(Binomial, InversionPathMatchesMeanAndVariance) {
  ASSERT_LT(1000 * 0.005, kInversionMaxMean);
  expect_binomial_moments(1000, 0.005, 200'000, 1);  // mean 5
  expect_binomial_moments(64, 0.125, 200'000, 2);    // decode-sized: 64 tokens, 1/8 of experts (mean 8)
  expect_binomial_moments(20, 0.5, 200'000, 3);      // p exactly 0.5 (mean 10)
}

TEST(Binomial, InversionPathWithHugeNAndTinyP) {
  // q^n = e^-100 is far from underflow; the walk must still reach the bulk of the pmf.
  ASSERT_LT(1e7 * 1e-6, kInversionMaxMean);
  expect_binomial_moments(10'000'000, 1e-6, 100'000, 4);
}

TEST(Binomial, LargeMeanPathMatchesMeanAndVariance) {
  expect_binomial_moments(1000, 0.05, 200'000, 13);  // mean 50: BTRS
  ASSERT_GT(100'000 * 0.01, kInversionMaxMean);
  expect_binomial_moments(100'000, 0.01, 100'000, 5);  // mean 1000
  expect_binomial_moments(1'000'000, 0.3, 100'000, 6);
}

TEST(Binomial, BothSidesOfThePathThresholdAgree) {
  // Means just below and just above kInversionMaxMean take different algorithms.
  const std::int64_t n = 1000;
  expect_binomial_moments(n, (kInversionMaxMean - 1) / n, 200'000, 7);
  expect_binomial_moments(n, (kInversionMaxMean + 1) / n, 200'000, 8);
}

TEST(Binomial, PAboveHalfIsReflected) {
  expect_binomial_moments(1000, 0.995, 200'000, 9);  // reflected onto the inversion path (mean 5)
  expect_binomial_moments(1000, 0.7, 200'000, 10);   // reflected onto the large-mean path
  expect_binomial_moments(7, 0.999, 200'000, 11);
}

TEST(Binomial, EdgeCasesAreExact) {
  Rng rng = make_stream(1, "edge");
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(sample_binomial(1000, 0.0, rng), 0);
    EXPECT_EQ(sample_binomial(1000, 1.0, rng), 1000);
    EXPECT_EQ(sample_binomial(0, 0.5, rng), 0);
    EXPECT_EQ(sample_binomial(1, 1.0, rng), 1);
  }
}

TEST(Binomial, SmallNFrequenciesMatchThePmf) {
  // Binomial(3, 0.3): P = q³, 3pq², 3p²q, p³. Pearson chi-square, 3 degrees of freedom;
  // the α = 0.001 critical value of χ²(3) is 16.266.
  const int draws = 100'000;
  const double p = 0.3, q = 0.7;
  const double pmf[4] = {q * q * q, 3 * p * q * q, 3 * p * p * q, p * p * p};
  Rng rng = make_stream(12, "small-n");
  std::vector<int> seen(4, 0);
  for (int i = 0; i < draws; ++i) ++seen[static_cast<std::size_t>(sample_binomial(3, p, rng))];
  double chi2 = 0;
  for (int k = 0; k < 4; ++k) {
    const double e = draws * pmf[k];
    chi2 += (seen[static_cast<std::size_t>(k)] - e) * (seen[static_cast<std::size_t>(k)] - e) / e;
  }
  EXPECT_LT(chi2, 16.266);
}

TEST(Binomial, SameStreamSameDraws) {
  Rng a = make_stream(3, "x"), b = make_stream(3, "x");
  for (int i = 0; i < 1000; ++i) {
    const double p = (i % 10 + 1) / 21.0;
    ASSERT_EQ(sample_binomial(500 + i, p, a), sample_binomial(500 + i, p, b));
  }
}

// Pearson chi-square of `draws` Binomial(n, p) draws against the exact pmf (computed here in
// long double by the recurrence from the mode), cells with expectation below 5 pooled into the
// tails. Returns the statistic and sets *dof.
double binomial_chi_square(std::int64_t n, double p, int draws, std::uint64_t seed, int* dof) {
  std::vector<long double> pmf(static_cast<std::size_t>(n) + 1);
  const auto mode = static_cast<std::size_t>(std::floor(static_cast<double>(n + 1) * p));
  pmf[mode] = 1;
  for (std::size_t x = mode; x-- > 0;)
    pmf[x] = pmf[x + 1] * static_cast<long double>(x + 1) / static_cast<long double>(n - static_cast<std::int64_t>(x)) *
             (1 - p) / p;
  for (std::size_t x = mode + 1; x < pmf.size(); ++x)
    pmf[x] = pmf[x - 1] * static_cast<long double>(n - static_cast<std::int64_t>(x) + 1) / static_cast<long double>(x) *
             p / (1 - p);
  long double total = 0;
  for (auto v : pmf) total += v;
  FastBits bits{seed};
  std::vector<int> seen(pmf.size(), 0);
  for (int i = 0; i < draws; ++i) ++seen[static_cast<std::size_t>(sample_binomial(n, p, bits))];
  // Cells: contiguous ranges of x, each with expectation >= 5.
  std::vector<long double> after(pmf.size() + 1, 0);  // after[x] = pmf mass beyond x
  for (std::size_t x = pmf.size(); x-- > 0;) after[x] = after[x + 1] + (x + 1 < pmf.size() ? pmf[x + 1] : 0);
  double chi2 = 0, e = 0, o = 0;
  int cells = 0;
  for (std::size_t x = 0; x < pmf.size(); ++x) {
    e += static_cast<double>(pmf[x] / total) * draws;
    o += seen[x];
    if (e >= 5) {
      // Close the cell unless what is left would be too small on its own.
      if (after[x] * draws >= 5 * total || x + 1 == pmf.size()) {
        chi2 += (o - e) * (o - e) / e;
        ++cells;
        e = o = 0;
      }
    }
  }
  if (e > 0) chi2 += (o - e) * (o - e) / e, ++cells;
  *dof = cells - 1;
  return chi2;
}

TEST(Binomial, FrequenciesMatchTheExactPmfOnEveryPath) {
  // Inversion with q^n by squaring (n > 64), BTRS near the mode (the explicit pmf ratio) and BTRS
  // far from it (log-factorials: a spread of ~30 puts most exact tests beyond 16 steps), and the
  // reflection. Critical value: χ²(dof) at α = 0.001 by the Wilson-Hilferty approximation.
  struct Case {
    std::int64_t n;
    double p;
  };
  for (const Case c :
       {Case{128, 1.0 / 18}, Case{400, 0.125}, Case{1024, 0.5}, Case{139'000, 1.0 / 144}, Case{400, 0.9}}) {
    int dof = 0;
    const double chi2 = binomial_chi_square(c.n, c.p, 400'000, 77, &dof);
    const double z = 3.090, k = dof;
    const double crit = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
    EXPECT_LT(chi2, crit) << "n=" << c.n << " p=" << c.p << " dof=" << dof;
    std::printf("  Binomial(%lld, %.4f): chi2 %.1f on %d dof (critical %.1f)\n", static_cast<long long>(c.n), c.p, chi2,
                dof, crit);
  }
}

TEST(Multinomial, KeptConditionalsDrawAsTheWeights) {
  // Weights with zeros, a dominant category and a zero tail: the kept conditionals must consume
  // the same bits and give the same counts as deriving them per draw.
  const std::vector<std::vector<double>> cases = {
      {0.2, 0.0, 0.5, 0.3}, {1.0, 0.0, 0.0}, {0.0, 0.0, 3.0}, {0.25, 0.25, 0.25, 0.25, 0.0}, {7.0}};
  for (const auto& w : cases) {
    std::vector<double> cond(w.size());
    multinomial_conditionals(w, cond);
    FastBits a{41}, b{41};
    for (const std::int64_t n : {0, 1, 7, 100, 5000}) {
      std::vector<std::int64_t> x(w.size(), 0), y(w.size(), 0);
      sample_multinomial(n, w, a, x);
      sample_conditional(n, cond, b, y);
      EXPECT_EQ(x, y) << n;
      EXPECT_EQ(a.state, b.state) << n;
      std::int64_t total = 0;
      for (const auto c : y) total += c;
      EXPECT_EQ(total, n);
    }
  }
}

}  // namespace
}  // namespace moesim::workloads
