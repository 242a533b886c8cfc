#include "workloads/normal.h"

#include <gtest/gtest.h>

#include "tests/workloads/stats_support.h"

#include <cmath>
#include <vector>

namespace moesim::workloads {
namespace {

using test::phi_cdf;

TEST(NormalZiggurat, MomentsMatchTheStandardNormal) {
  FastBits bits{2024};
  const int draws = 2'000'000;
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (int i = 0; i < draws; ++i) {
    const double z = standard_normal(bits);
    s1 += z, s2 += z * z, s3 += z * z * z, s4 += z * z * z * z;
  }
  const double n = draws;
  // Standard errors: mean 1/sqrt(n), E z^2: sqrt(2/n), E z^3: sqrt(15/n), E z^4: sqrt(96/n).
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2 / n));
  EXPECT_NEAR(s3 / n, 0.0, 5 * std::sqrt(15 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96 / n));
}

// Pearson chi-square over 64 equiprobable cells of the normal (so the layers' edges, the wedges,
// the mode and both tails are all inside some cell), plus the two tails beyond the base layer's
// edge r = 3.654 on their own: a layer that did not close at the mode or a wrong tail shows here.
TEST(NormalZiggurat, FrequenciesMatchPhi) {
  constexpr int kCells = 64;
  std::vector<double> edges;  // interior edges, by bisection on Phi
  for (int c = 1; c < kCells; ++c) {
    double lo = -10, hi = 10;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (phi_cdf(mid) < static_cast<double>(c) / kCells ? lo : hi) = mid;
    }
    edges.push_back(0.5 * (lo + hi));
  }
  FastBits bits{77};
  const int draws = 1'280'000;
  std::vector<int> seen(kCells, 0);
  int beyond_r = 0;
  for (int i = 0; i < draws; ++i) {
    const double z = standard_normal(bits);
    int c = 0;
    while (c < kCells - 1 && z >= edges[static_cast<std::size_t>(c)]) ++c;
    ++seen[static_cast<std::size_t>(c)];
    beyond_r += std::fabs(z) > 3.6541528853610088 ? 1 : 0;
  }
  double chi2 = 0;
  const double e = static_cast<double>(draws) / kCells;
  for (const int o : seen) chi2 += (o - e) * (o - e) / e;
  EXPECT_LT(chi2, 103.4);                                             // chi-square(63) at alpha = 0.001
  const double tail = 2 * (1 - phi_cdf(3.6541528853610088)) * draws;  // ~330
  EXPECT_NEAR(beyond_r, tail, 5 * std::sqrt(tail));
}

TEST(NormalZiggurat, SameBitsSameVariates) {
  FastBits a{5}, b{5};
  for (int i = 0; i < 10'000; ++i) ASSERT_EQ(standard_normal(a), standard_normal(b));
}

}  // namespace
}  // namespace moesim::workloads
