#include "workloads/binomial.h"

#include <array>
#include <algorithm>
#include <cmath>

namespace moesim::workloads {
namespace {

template <class G>
double uniform01(G& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

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
template <class G>
std::int64_t inversion(std::int64_t n, double p, G& rng) {
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

// ln k! : a table for small k, else Stirling's series to 1/k^5 (absolute error < 1e-14 there).
double log_factorial(double k) {
  static const std::array<double, 256> table = [] {
    std::array<double, 256> t{};
    for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] + std::log(static_cast<double>(i));
    return t;
  }();
  if (k < 256) return table[static_cast<std::size_t>(k)];
  const double x = k + 1, r = 1.0 / x, r2 = r * r;
  return (x - 0.5) * std::log(x) - x + 0.91893853320467274178 + r * (1.0 / 12 - r2 * (1.0 / 360 - r2 / 1260));
}

// BTRS for p <= 0.5 and n p >= 10 (Hörmann 1993, algorithm BTRS).
template <class G>
std::int64_t btrs(std::int64_t n, double p, G& rng) {
  const double nd = static_cast<double>(n);
  const double q = 1.0 - p;
  const double spq = std::sqrt(nd * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = nd * p + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq;
  // The exact-acceptance constants: computed only when a draw falls outside the squeeze.
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
      h = log_factorial(m) + log_factorial(nd - m);
      exact_ready = true;
    }
    v = std::log(v * alpha / (a / (us * us) + b));
    if (v <= h - log_factorial(k) - log_factorial(nd - k) + (k - m) * lpq) return static_cast<std::int64_t>(k);
  }
}

template <class G>
std::int64_t binomial(std::int64_t n, double p, G& rng) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(n, 1.0 - p, rng);
  if (static_cast<double>(n) * p < kInversionMaxMean) return inversion(n, p, rng);
  return btrs(n, p, rng);
}

}  // namespace

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng) { return binomial(n, p, rng); }
std::int64_t sample_binomial(std::int64_t n, double p, FastBits& bits) { return binomial(n, p, bits); }

void sample_multinomial(std::int64_t n, std::span<const double> probs, FastBits& bits, std::span<std::int64_t> out) {
  double mass = 0;
  for (const double q : probs) mass += q;
  for (std::size_t i = 0; i < probs.size() && n > 0; ++i) {
    if (probs[i] <= 0) continue;
    const std::int64_t c = i + 1 == probs.size() || probs[i] >= mass ? n : binomial(n, std::min(1.0, probs[i] / mass), bits);
    out[i] += c;
    n -= c;
    mass -= probs[i];
  }
}

}  // namespace moesim::workloads
