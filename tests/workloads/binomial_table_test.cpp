// BinomialTable draws against the exact binomial pmf (Pearson chi-square at a fixed seed) for
// small and large means, a table that starts at 0 and one that starts past it, p above one half,
// and the degenerate parameters; the size bound that keeps a table small; and RepeatedBinomial's
// choice of table or sampler, and its law with two alternating sizes.
#include "workloads/binomial_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "workloads/binomial.h"

namespace moesim::workloads {
namespace {

double log_pmf(std::int64_t n, double p, std::int64_t x) {
  const auto nd = static_cast<double>(n), xd = static_cast<double>(x);
  return std::lgamma(nd + 1) - std::lgamma(xd + 1) - std::lgamma(nd - xd + 1) + xd * std::log(p) +
         (nd - xd) * std::log1p(-p);
}

// Pearson chi-square of `draws` table draws against the pmf by logarithms (independent of the
// table's ratio recurrence), cells merged to an expectation of at least 5.
double chi_square(std::int64_t n, double p, int draws, std::uint64_t seed, int* dof) {
  BinomialTable table;
  table.build(n, p);
  EXPECT_TRUE(table.built_for(n, p));
  FastBits bits{seed};
  std::vector<int> seen(static_cast<std::size_t>(n) + 1, 0);
  for (int i = 0; i < draws; ++i) {
    const std::int64_t x = table(bits);
    EXPECT_GE(x, 0);
    EXPECT_LE(x, n);
    ++seen[static_cast<std::size_t>(std::clamp<std::int64_t>(x, 0, n))];
  }
  double chi2 = 0, e = 0, o = 0, left = 1;
  int cells = 0;
  for (std::int64_t x = 0; x <= n; ++x) {
    const double q = std::exp(log_pmf(n, p, x));
    left -= q;
    e += (x == n ? q + std::max(0.0, left) : q) * draws;
    o += seen[static_cast<std::size_t>(x)];
    if ((e >= 5 && left * draws >= 5) || x == n) {
      if (e > 0) chi2 += (o - e) * (o - e) / e, ++cells;
      e = o = 0;
    }
  }
  *dof = cells - 1;
  return chi2;
}

TEST(BinomialTable, FrequenciesMatchTheBinomialPmf) {
  // Own-node pairs of a decode row (1,024 pairs, 1 node of 18), a small mean from 0, p = 1/2,
  // p above 1/2, and a large mean whose table starts far past 0.
  const std::pair<std::int64_t, double> cases[] = {
      {1024, 1.0 / 18}, {57, 0.125}, {1024, 0.5}, {300, 0.97}, {100'000, 0.01}};
  for (const auto& [n, p] : cases) {
    int dof = 0;
    const double chi2 = chi_square(n, p, 400'000, 17, &dof);
    const double z = 3.090, k = dof;  // χ²(dof) at α = 0.001 (Wilson-Hilferty)
    const double crit = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
    EXPECT_LT(chi2, crit) << "n " << n << " p " << p << " dof " << dof;
    std::printf("  Binomial(%lld, %.4f): chi2 %.1f on %d dof (critical %.1f)\n", static_cast<long long>(n), p, chi2,
                dof, crit);
  }
}

TEST(BinomialTable, DegenerateParametersDrawTheirOnlyValue) {
  FastBits bits{3};
  BinomialTable table;
  table.build(0, 0.3);
  EXPECT_EQ(table(bits), 0);
  table.build(40, 0.0);
  EXPECT_EQ(table(bits), 0);
  table.build(40, 1.0);
  EXPECT_EQ(table(bits), 40);
  EXPECT_TRUE(table.built_for(40, 1.0));
  EXPECT_FALSE(table.built_for(41, 1.0));
  EXPECT_FALSE(BinomialTable().built_for(0, 0.0));
}

TEST(BinomialTable, FitsBoundsTheTableSize) {
  EXPECT_TRUE(BinomialTable::fits(1024, 0.5));       // sd 16
  EXPECT_TRUE(BinomialTable::fits(131'072, 1.0 / 18));  // a prefill row: sd 83
  EXPECT_FALSE(BinomialTable::fits(100'000'000, 0.5));  // sd 5,000
  EXPECT_TRUE(BinomialTable::fits(0, 0.5));
  BinomialTable table;
  EXPECT_THROW(table.build(100'000'000, 0.5), std::invalid_argument);
  EXPECT_FALSE(table.built_for(100'000'000, 0.5));
}

TEST(BinomialTable, RepeatedSiteTabulatesOnlyStreaks) {
  // The first kStreak - 1 draws of a size go through sample_binomial (the same bits, the same
  // values); from the kStreak-th on the site reads its table, whose inversion gives other values.
  RepeatedBinomial site;
  FastBits a{5}, b{5};
  const double p = 1.0 / 18;
  for (int i = 1; i < RepeatedBinomial::kStreak; ++i) EXPECT_EQ(site(1024, p, a), sample_binomial(1024, p, b)) << i;
  int differ = 0;
  for (int i = 0; i < 50; ++i) differ += site(1024, p, a) != sample_binomial(1024, p, b);
  EXPECT_GT(differ, 25);
  // Sizes that change every draw never get a table: the site is sample_binomial, draw for draw.
  RepeatedBinomial changing;
  FastBits c{9}, d{9};
  for (int i = 0; i < 500; ++i) {
    const std::int64_t n = 1000 + i % 50;
    ASSERT_EQ(changing(n, p, c), sample_binomial(n, p, d)) << i;
  }
}

TEST(BinomialTable, RepeatedSiteKeepsTheLawAcrossTwoAlternatingSizes) {
  // Two micro-batches of different sizes, eight rows each, step after step: both tabulated, and
  // each size's draws keep the binomial's mean and variance.
  RepeatedBinomial site;
  FastBits bits{11};
  const double p = 1.0 / 18;
  const std::int64_t sizes[2] = {1024, 1016};
  double sum[2] = {}, sum2[2] = {};
  constexpr int kSteps = 25'000;
  for (int step = 0; step < kSteps; ++step)
    for (int mb = 0; mb < 2; ++mb)
      for (int row = 0; row < 8; ++row) {
        const auto x = static_cast<double>(site(sizes[mb], p, bits));
        sum[mb] += x, sum2[mb] += x * x;
      }
  for (int mb = 0; mb < 2; ++mb) {
    const double draws = 8.0 * kSteps, mean = static_cast<double>(sizes[mb]) * p, var = mean * (1 - p);
    const double m = sum[mb] / draws;
    EXPECT_NEAR(m, mean, 5 * std::sqrt(var / draws)) << sizes[mb];
    EXPECT_NEAR(sum2[mb] / draws - m * m, var, 0.02 * var) << sizes[mb];
  }
}

}  // namespace
}  // namespace moesim::workloads
