// CountMethod::kFast (workloads/binomial.h): its law, computed here from the same Cornish-Fisher
// map, against the binomial (the documented bounds), and its draws against its law (the
// implementation: the ziggurat normal, the map and the rounding).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "workloads/binomial.h"

namespace moesim::workloads {
namespace {

double phi_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

std::vector<double> binomial_pmf(std::int64_t n, double p) {
  std::vector<double> pmf(static_cast<std::size_t>(n) + 1);
  const double lp = std::log(p), lq = std::log1p(-p);
  for (std::int64_t k = 0; k <= n; ++k)
    pmf[static_cast<std::size_t>(k)] =
        std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(n - k) + 1.0) +
                 static_cast<double>(k) * lp + static_cast<double>(n - k) * lq);
  return pmf;
}

// The law of the fast draw for p <= 1/2: k = floor(mean + sd w(Z) + 1/2) within [0, n], so
// P(X <= k) = P(w(Z) < (k + 1/2 - mean) / sd) = Phi(w^-1(...)), w increasing where it matters.
std::vector<double> fast_law(std::int64_t n, double p) {
  const double q = 1 - p, mean = static_cast<double>(n) * p, var = mean * q, sd = std::sqrt(var);
  const double g1 = (q - p) / sd, g2 = (1 - 6 * p * q) / var;
  const auto w = [&](double z) {
    const double z2 = z * z;
    return z + g1 * (z2 - 1) / 6 + g2 * z * (z2 - 3) / 24 - g1 * g1 * z * (2 * z2 - 5) / 36;
  };
  const auto cdf_below = [&](double t) {  // P(mean + sd w(Z) < t)
    const double y = (t - mean) / sd;
    double lo = -8, hi = 8;
    if (w(lo) >= y) return 0.0;
    if (w(hi) < y) return 1.0;
    for (int it = 0; it < 100; ++it) {
      const double mid = 0.5 * (lo + hi);
      (w(mid) < y ? lo : hi) = mid;
    }
    return phi_cdf(0.5 * (lo + hi));
  };
  std::vector<double> law(static_cast<std::size_t>(n) + 1);
  double below = 0;
  for (std::int64_t k = 0; k <= n; ++k) {
    const double c = k == n ? 1.0 : cdf_below(static_cast<double>(k) + 0.5);
    law[static_cast<std::size_t>(k)] = c - below;
    below = c;
  }
  return law;
}

struct Case {
  std::int64_t n;
  double p;
};
// Variances 10 (the threshold) to 2,250, the routing draw's regimes among them: a rank's two
// slots (225, 1/2), a node's ranks (1800, 0.14), own-node shares (225, 0.056), rare experts.
const Case kCases[] = {{40, 0.5},   {112, 0.1},   {520, 0.02},  {225, 0.056}, {2000, 0.006},
                       {225, 0.5},  {100, 0.3},   {1800, 0.14}, {9000, 0.5}};

TEST(BinomialFast, LawIsWithinItsBoundsOfTheBinomial) {
  for (const Case c : kCases) {
    const auto exact = binomial_pmf(c.n, c.p), fast = fast_law(c.n, c.p);
    const double var = static_cast<double>(c.n) * c.p * (1 - c.p);
    ASSERT_GE(var, kNormalMinVariance);
    double tv = 0;
    for (std::size_t k = 0; k < exact.size(); ++k) tv += std::fabs(exact[k] - fast[k]);
    tv /= 2;
    // The documented bound: 2.5e-3 at variance 10, falling as 1 / variance.
    EXPECT_LT(tv, 2.5e-3 * kNormalMinVariance / var + 1e-5) << "n=" << c.n << " p=" << c.p;
    // Upper tails (where the slowest rank of a layer sits) at 1e-2 and 1e-3: within 8 %.
    double tail_exact = 0, tail_fast = 0, worst = 0;
    for (std::size_t k = exact.size(); k-- > 0;) {
      tail_exact += exact[k];
      tail_fast += fast[k];
      if (tail_exact >= 1e-3 && tail_exact <= 1e-2) worst = std::max(worst, std::fabs(tail_fast / tail_exact - 1));
      if (tail_exact > 1e-2) break;
    }
    EXPECT_LT(worst, 0.08) << "n=" << c.n << " p=" << c.p;
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
    for (int i = 0; i < kDraws; ++i) ++seen[static_cast<std::size_t>(sample_binomial(c.n, c.p, bits, CountMethod::kFast))];
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
    const std::int64_t n = 40 + i % 50;
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
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown count method 'approximate' (valid: fast, exact)");
  }
}

}  // namespace
}  // namespace moesim::workloads
