// CountMethod::kFast (workloads/binomial.h): its law, computed here from the same Cornish-Fisher
// map, against the binomial (the documented bounds), and its draws against its law (the
// implementation: the ziggurat normal, the map and the rounding).
#include <gtest/gtest.h>

#include "tests/workloads/stats_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "workloads/binomial.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

using test::binomial_pmf;
using test::phi_cdf;

// The law of the fast draw for p <= 1/2: k = floor(point(Z)) within [0, n], so
// P(X <= k) = P(point(Z) < k + 1) = Phi(point^-1(k + 1)), the point increasing where it matters
// (below z = -5.8 at variance 6 it folds back, for 3e-9 of the mass). The map written out again
// here from workloads/cornish_fisher.h's formulas.
std::vector<double> fast_law(std::int64_t n, double p) {
  const double q = 1 - p, mean = static_cast<double>(n) * p, var = mean * q;
  const double k2 = var - 1.0 / 12, k3 = var * (q - p), k4 = var * (1 - 6 * p * q) + 1.0 / 120, sd = std::sqrt(k2);
  const double g1 = k3 / (k2 * sd), g2 = k4 / (k2 * k2);
  const auto point = [&](double z) {
    const double z2 = z * z;
    return mean + 0.5 + sd * (z + g1 * (z2 - 1) / 6 + g2 * z * (z2 - 3) / 24 - g1 * g1 * z * (2 * z2 - 5) / 36);
  };
  const auto cdf_below = [&](double t) {  // P(point(Z) < t)
    double lo = -5.5, hi = 8;
    if (point(lo) >= t) return 0.0;
    if (point(hi) < t) return 1.0;
    for (int it = 0; it < 100; ++it) {
      const double mid = 0.5 * (lo + hi);
      (point(mid) < t ? lo : hi) = mid;
    }
    return phi_cdf(0.5 * (lo + hi));
  };
  std::vector<double> law(static_cast<std::size_t>(n) + 1);
  double below = 0;
  for (std::int64_t k = 0; k <= n; ++k) {
    const double c = k == n ? 1.0 : cdf_below(static_cast<double>(k) + 1);
    law[static_cast<std::size_t>(k)] = c - below;
    below = c;
  }
  return law;
}

struct Case {
  std::int64_t n;
  double p;
};
// Variances 6 (the threshold) to 2,250, the routing draw's regimes among them: a rank's two
// slots (225, 1/2), a node's ranks (1800, 0.14), own-node shares (225, 0.056), a node's internal
// pairs (88, 1/8), a rank's five slots (58, 1/5), rare experts.
const Case kCases[] = {{24, 0.5},     {67, 0.1},  {1207, 0.005}, {88, 0.125},  {58, 0.2},  {225, 0.056},
                       {2000, 0.006}, {225, 0.5}, {100, 0.3},    {1800, 0.14}, {9000, 0.5}};

TEST(BinomialFast, LawIsWithinItsBoundsOfTheBinomial) {
  for (const Case c : kCases) {
    const auto exact = binomial_pmf(c.n, c.p), fast = fast_law(c.n, c.p);
    const double var = static_cast<double>(c.n) * c.p * (1 - c.p);
    ASSERT_GE(var, kNormalMinVariance);
    double tv = 0;
    for (std::size_t k = 0; k < exact.size(); ++k) tv += std::fabs(exact[k] - fast[k]);
    tv /= 2;
    // The documented bounds: 7e-4 from variance 6, 3e-4 from 10.
    EXPECT_LT(tv, var < 10 ? 7e-4 : 3e-4) << "n=" << c.n << " p=" << c.p;
    // Upper tails (where the slowest rank of a layer sits) between 1e-2 and 1e-3: within 3.5 % from
    // variance 6, 1.5 % from 10.
    double tail_exact = 0, tail_fast = 0, worst = 0;
    for (std::size_t k = exact.size(); k-- > 0;) {
      tail_exact += exact[k];
      tail_fast += fast[k];
      if (tail_exact >= 1e-3 && tail_exact <= 1e-2) worst = std::max(worst, std::fabs(tail_fast / tail_exact - 1));
      if (tail_exact > 1e-2) break;
    }
    EXPECT_LT(worst, var < 10 ? 0.035 : 0.015) << "n=" << c.n << " p=" << c.p;
    std::printf("  Binomial(%lld, %.3f), variance %.1f: total variation %.1e, upper tail 1e-3..1e-2 within %.1f %%\n",
                static_cast<long long>(c.n), c.p, var, tv, 100 * worst);
  }
}

// Pearson chi-square of fast draws against the fast law (cells pooled to an expectation >= 5).
TEST(BinomialFast, DrawsFollowTheirLaw) {
  for (const Case c : kCases) {
    const auto law = fast_law(c.n, c.p);
    FastBits bits{static_cast<std::uint64_t>(c.n) * 31 + 7};
    constexpr int kDraws = 300'000;
    std::vector<int> seen(law.size(), 0);
    for (int i = 0; i < kDraws; ++i)
      ++seen[static_cast<std::size_t>(sample_binomial(c.n, c.p, bits, CountMethod::kFast))];
    double chi2 = 0, e = 0, o = 0, rest = 1;
    int cells = 0;
    for (std::size_t k = 0; k < law.size(); ++k) {
      e += law[k] * kDraws;
      o += seen[k];
      rest -= law[k];
      if (e >= 5 && (rest * kDraws >= 5 || k + 1 == law.size())) {
        chi2 += (o - e) * (o - e) / e;
        ++cells;
        e = o = 0;
      }
    }
    if (e > 0) chi2 += (o - e) * (o - e) / e, ++cells;
    const double dof = cells - 1, z = 3.090;  // alpha = 0.001, Wilson-Hilferty
    const double crit = dof * std::pow(1 - 2 / (9 * dof) + z * std::sqrt(2 / (9 * dof)), 3);
    EXPECT_LT(chi2, crit) << "n=" << c.n << " p=" << c.p << " dof=" << dof;
  }
}

TEST(BinomialFast, ReflectsPAboveOneHalf) {
  FastBits a{9}, b{9};
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t x = sample_binomial(1000, 0.7, a, CountMethod::kFast);
    ASSERT_EQ(x, 1000 - sample_binomial(1000, 0.3, b, CountMethod::kFast));
  }
}

TEST(BinomialFast, BelowTheVarianceThresholdDrawsExactly) {
  // Same bits, same counts as the exact method wherever n p q < kNormalMinVariance.
  FastBits a{11}, b{11};
  for (int i = 0; i < 20'000; ++i) {
    const std::int64_t n = 1 + i % 400;
    const double p = 0.2 * ((i * 7919) % 1000) / 1000.0;
    if (static_cast<double>(n) * p * (1 - p) >= kNormalMinVariance) continue;
    ASSERT_EQ(sample_binomial(n, p, a, CountMethod::kFast), sample_binomial(n, p, b, CountMethod::kExact))
        << "n=" << n << " p=" << p;
  }
}

TEST(BinomialFast, StaysWithinZeroToN) {
  FastBits bits{3};
  for (int i = 0; i < 200'000; ++i) {
    const std::int64_t n = 24 + i % 50;
    const std::int64_t x = sample_binomial(n, 0.5, bits, CountMethod::kFast);
    ASSERT_GE(x, 0);
    ASSERT_LE(x, n);
  }
}

TEST(CountMethods, NamedAsTheRegistrySaysAndUnknownNamesListTheValidOnes) {
  for (const auto& e : count_methods()) EXPECT_EQ(count_method_name(count_method_named(e.name)), e.name);
  try {
    count_method_named("approximate");
    FAIL() << "expected a throw";
  } catch (const WorkloadError& e) {
    EXPECT_STREQ(e.what(), "unknown count method 'approximate' (valid: fast, exact)");
  }
}

}  // namespace
}  // namespace moesim::workloads
