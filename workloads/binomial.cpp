#include "workloads/binomial.h"

#include <cmath>

namespace moesim::workloads {
namespace {

double uniform01(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// q^n: by squaring for small n (a few multiplications, relative error ~ n·2^-53), else through
// the logarithm (accurate for q near 1).
double small_power(double q, std::int64_t n) {
  if (n > 64) return std::exp(static_cast<double>(n) * std::log1p(q - 1.0));
  double result = 1.0, base = q;
  for (std::int64_t e = n; e > 0; e >>= 1) {
    if (e & 1) result *= base;
    base *= base;
  }
  return result;
}

// Inversion for p <= 0.5: walk the pmf from 0 using the ratio P(x+1)/P(x) = (n-x)/(x+1) * p/q.
std::int64_t inversion(std::int64_t n, double p, Rng& rng) {
  const double q = 1.0 - p;
  const double s = p / q;
  const double a = static_cast<double>(n + 1) * s;
  double pmf = small_power(q, n);  // q^n
  double u = uniform01(rng);
  std::int64_t x = 0;
  while (u > pmf && x < n) {
    u -= pmf;
    ++x;
    pmf *= a / static_cast<double>(x) - s;
  }
  return x;
}

// BTRS for p <= 0.5 and n p >= 10 (Hörmann 1993, algorithm BTRS).
std::int64_t btrs(std::int64_t n, double p, Rng& rng) {
  const double nd = static_cast<double>(n);
  const double q = 1.0 - p;
  const double spq = std::sqrt(nd * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = nd * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq;
  // The exact-acceptance constants cost two lgamma calls: computed only when a draw falls
  // outside the squeeze (about one call in five).
  double lpq = 0, m = 0, h = 0;
  bool exact_ready = false;
  for (;;) {
    const double u = uniform01(rng) - 0.5;
    double v = uniform01(rng);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (k < 0 || k > nd) continue;
    if (us >= 0.07 && v <= v_r) return static_cast<std::int64_t>(k);
    if (!exact_ready) {
      lpq = std::log(p / q);
      m = std::floor((nd + 1) * p);
      h = std::lgamma(m + 1) + std::lgamma(nd - m + 1);
      exact_ready = true;
    }
    v = std::log(v * alpha / (a / (us * us) + b));
    if (v <= h - std::lgamma(k + 1) - std::lgamma(nd - k + 1) + (k - m) * lpq) return static_cast<std::int64_t>(k);
  }
}

}  // namespace

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - sample_binomial(n, 1.0 - p, rng);
  if (static_cast<double>(n) * p < kInversionMaxMean) return inversion(n, p, rng);
  return btrs(n, p, rng);
}

}  // namespace moesim::workloads
