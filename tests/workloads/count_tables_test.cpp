// PoissonTable draws against the exact Poisson pmf (Pearson chi-square at a fixed seed), for a
// small mean (the table starts at 0) and a large one (the table starts past 0, built from the
// mode); every guide bucket kind (pure and mixed) is hit many times at this many draws.
#include "workloads/count_tables.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace moesim::workloads {
namespace {

double poisson_chi_square(double lambda, int draws, std::uint64_t seed, int* dof) {
  PoissonTable table;
  table.build(lambda);
  FastBits bits{seed};
  const auto top = static_cast<std::size_t>(lambda + 12 * std::sqrt(lambda) + 20);
  std::vector<int> seen(top + 1, 0);
  for (int i = 0; i < draws; ++i) {
    const auto x = static_cast<std::size_t>(table(static_cast<std::uint32_t>(bits())));
    ++seen[std::min(x, top)];
  }
  // pmf by logarithms (independent of the table's recurrence); cells of expectation >= 5.
  double chi2 = 0, e = 0, o = 0, left = 1;
  int cells = 0;
  for (std::size_t x = 0; x <= top; ++x) {
    const double p =
        std::exp(static_cast<double>(x) * std::log(lambda) - lambda - std::lgamma(static_cast<double>(x) + 1));
    left -= p;
    e += (x == top ? p + std::max(0.0, left) : p) * draws;
    o += seen[x];
    if ((e >= 5 && left * draws >= 5) || x == top) {
      if (e > 0) chi2 += (o - e) * (o - e) / e, ++cells;
      e = o = 0;
    }
  }
  *dof = cells - 1;
  return chi2;
}

TEST(PoissonTable, FrequenciesMatchThePoissonPmf) {
  for (const double lambda : {0.3, 7.3, 28.0, 250.0}) {
    int dof = 0;
    const double chi2 = poisson_chi_square(lambda, 500'000, 91, &dof);
    // χ²(dof) at α = 0.001 (Wilson-Hilferty).
    const double z = 3.090, k = dof;
    const double crit = k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
    EXPECT_LT(chi2, crit) << "lambda " << lambda << " dof " << dof;
    std::printf("  Poisson(%.1f): chi2 %.1f on %d dof (critical %.1f)\n", lambda, chi2, dof, crit);
  }
}

TEST(PoissonTable, ZeroMeanDrawsZero) {
  PoissonTable table;
  table.build(0.0);
  for (std::uint32_t u : {0u, 12345u, 0xFFFFFFFFu}) EXPECT_EQ(table(u), 0);
}

}  // namespace
}  // namespace moesim::workloads
