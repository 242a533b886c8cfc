#include "workloads/binomial.h"

#include <cmath>
#include <random>

namespace moesim::workloads {
namespace {

double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Inversion for p <= 0.5: walk the pmf from 0 using the ratio P(x+1)/P(x) = (n-x)/(x+1) * p/q.
std::int64_t inversion(std::int64_t n, double p, Rng& rng) {
  const double q = 1.0 - p;
  const double s = p / q;
  const double a = static_cast<double>(n + 1) * s;
  double pmf = std::exp(static_cast<double>(n) * std::log1p(-p));  // q^n
  double u = uniform01(rng);
  std::int64_t x = 0;
  while (u > pmf && x < n) {
    u -= pmf;
    ++x;
    pmf *= a / static_cast<double>(x) - s;
  }
  return x;
}

}  // namespace

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - sample_binomial(n, 1.0 - p, rng);
  if (static_cast<double>(n) * p < kInversionMaxMean) return inversion(n, p, rng);
  return std::binomial_distribution<std::int64_t>(n, p)(rng);
}

}  // namespace moesim::workloads
