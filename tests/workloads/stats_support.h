// Test helpers shared by the workloads/ tests: the reference laws and goodness-of-fit statistics
// the samplers are checked against.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace moesim::workloads::test {

// The standard normal CDF.
inline double phi_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The Binomial(n, p) probability mass function over 0..n (log-gamma form: exact to rounding).
inline std::vector<double> binomial_pmf(std::int64_t n, double p) {
  std::vector<double> pmf(static_cast<std::size_t>(n) + 1);
  const double lp = std::log(p), lq = std::log1p(-p);
  for (std::int64_t k = 0; k <= n; ++k)
    pmf[static_cast<std::size_t>(k)] =
        std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(static_cast<double>(n - k) + 1.0) +
                 static_cast<double>(k) * lp + static_cast<double>(n - k) * lq);
  return pmf;
}

// Pearson χ² of observed counts against n·probs (probs normalised here).
inline double chi_square(const std::vector<std::int64_t>& counts, const std::vector<double>& probs) {
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

}  // namespace moesim::workloads::test
