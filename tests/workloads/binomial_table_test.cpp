// BinomialTable draws against the exact binomial pmf (Pearson chi-square at a fixed seed) for
// small and large means, a table that starts at 0 and one that starts past it, p above one half,
// and the degenerate parameters; and the size bound that keeps a table small.
#include "workloads/binomial_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

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
}

}  // namespace
}  // namespace moesim::workloads
