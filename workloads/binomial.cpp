#include "workloads/binomial.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "workloads/binomial_lanes.h"
#include "workloads/cornish_fisher.h"
#include "workloads/normal.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

// q^n by squaring (about 2 log2 n multiplications, relative error ~ log2(n) · 2^-53 on top of the
// rounding of q itself, which the logarithm would carry too); through the logarithm for huge n.
double small_power(double q, std::int64_t n) {
  if (n > kInversionMaxN) return std::exp(static_cast<double>(n) * std::log1p(q - 1.0));
  double result = 1.0, base = q;
  for (std::int64_t e = n; e > 0; e >>= 1) {
    const double factor[2] = {1.0, base};  // by the exponent's bit, not a branch on it (x * 1 == x)
    result *= factor[e & 1];
    base *= base;
  }
  return result;
}

constexpr int kReciprocals = kInversionReciprocals;

// Inversion for p <= 0.5: X is the least x with u <= F(x), the cdf walked up from 0 by the pmf ratio
// P(x+1)/P(x) = (n-x)/(x+1) * p/q. Four steps per pass, their comparisons summed rather than
// branched on: a short walk (the usual one) costs one well-predicted branch instead of a
// mispredicted exit per variate. binomial_batch's four-lane version does the same operations.
std::int64_t invert(std::int64_t n, double p, double u) {
  const double q = 1.0 - p;
  const double s = p / q;
  const double a = static_cast<double>(n + 1) * s;
  const auto& inv = inversion_reciprocals();
  const auto ratio = [&](std::int64_t x) {  // P(x) / P(x - 1), x >= 1
    return (x < kReciprocals ? a * inv[static_cast<std::size_t>(x)] : a / static_cast<double>(x)) - s;
  };
  double pmf = small_power(q, n);  // q^n
  double cdf = pmf;                // F(x)
  std::int64_t x = 0, below = 0;   // below: the x' < x walked so far with F(x') < u
  do {                             // the first pass unconditionally: most small-mean draws end in it
    const double p1 = pmf * ratio(x + 1), c1 = cdf + p1;
    const double p2 = p1 * ratio(x + 2), c2 = c1 + p2;
    const double p3 = p2 * ratio(x + 3), c3 = c2 + p3;
    const double p4 = p3 * ratio(x + 4), c4 = c3 + p4;
    below += static_cast<std::int64_t>(u > cdf) + static_cast<std::int64_t>(u > c1) +
             static_cast<std::int64_t>(u > c2) + static_cast<std::int64_t>(u > c3);
    pmf = p4;
    cdf = c4;
    x += 4;
  } while (u > cdf && x < n);
  return std::min(below, n);
}

template <class G>
std::int64_t inversion(std::int64_t n, double p, G& rng) {
  return invert(n, p, unit_uniform(rng));
}

// ln k! : a table for small k, else Stirling's series to 1/k^5 (absolute error < 1e-14 there).
constexpr std::size_t kLogFactorials = 1024;
double log_factorial(double k) {
  static const std::array<double, kLogFactorials> table = [] {
    std::array<double, kLogFactorials> t{};
    for (std::size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1] + std::log(static_cast<double>(i));
    return t;
  }();
  if (k < static_cast<double>(kLogFactorials)) return table[static_cast<std::size_t>(k)];
  const double x = k + 1, r = 1.0 / x, r2 = r * r;
  return (x - 0.5) * std::log(x) - x + 0.91893853320467274178 + r * (1.0 / 12 - r2 * (1.0 / 360 - r2 / 1260));
}

// Candidates within this distance of the mode are accepted against the pmf ratio f(k)/f(m) as an
// explicit product (no logarithm); farther ones through log-factorials.
constexpr std::int64_t kProductSteps = 16;

// f(k) / f(m) for the Binomial(n, p) pmf f, |k - m| <= kProductSteps: the product of the
// successive ratios (n - i + 1) / i · p/q, numerator and denominator kept apart (one division).
double pmf_ratio(std::int64_t k, std::int64_t m, double nd, double s) {
  double num = 1.0, den = 1.0;
  if (k > m) {
    for (std::int64_t i = m + 1; i <= k; ++i) {
      num *= (nd - static_cast<double>(i) + 1) * s;
      den *= static_cast<double>(i);
    }
  } else {
    for (std::int64_t i = k + 1; i <= m; ++i) {
      num *= static_cast<double>(i);
      den *= (nd - static_cast<double>(i) + 1) * s;
    }
  }
  return num / den;
}

// BTRS for p <= 0.5 and n p >= 10 (Hörmann 1993, algorithm BTRS). The final test
// log(v) <= log f(k) - log f(m) is made as v <= f(k) / f(m) by the explicit product when k is
// near the mode m (the same test, without logarithms).
template <class G>
std::int64_t btrs(std::int64_t n, double p, G& rng) {
  const double nd = static_cast<double>(n);
  const double q = 1.0 - p;
  const double spq = std::sqrt(nd * p * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = nd * p + 0.5;
  const double inv_b = 1.0 / b;
  const double v_r = 0.92 - 4.2 * inv_b;
  const double alpha = (2.83 + 5.1 * inv_b) * spq;
  const double two_a = 2 * a;
  const auto m = static_cast<std::int64_t>(std::floor((nd + 1) * p));
  // The log-domain constants: computed only when a candidate far from the mode needs them.
  double lpq = 0, h = 0;
  bool logs_ready = false;
  for (;;) {
    const double u = unit_uniform(rng) - 0.5;
    double v = unit_uniform(rng);
    const double us = 0.5 - std::fabs(u);
    // k = floor(x), for 0 <= k <= n, by truncation (no library floor): x in [0, n + 1).
    const double x = (two_a / us + b) * u + c;
    if (!(x >= 0 && x < nd + 1)) continue;
    const auto ki = static_cast<std::int64_t>(x);
    const auto k = static_cast<double>(ki);
    if (us >= 0.07 && v <= v_r) return ki;
    v *= alpha / (a / (us * us) + b);
    if (ki - m <= kProductSteps && m - ki <= kProductSteps) {
      if (v <= pmf_ratio(ki, m, nd, p / q)) return ki;
      continue;
    }
    if (!logs_ready) {
      lpq = std::log(p / q);
      h = log_factorial(static_cast<double>(m)) + log_factorial(nd - static_cast<double>(m));
      logs_ready = true;
    }
    if (std::log(v) <= h - log_factorial(k) - log_factorial(nd - k) + (k - static_cast<double>(m)) * lpq) return ki;
  }
}

template <class G>
std::int64_t binomial(std::int64_t n, double p, G& rng) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(n, 1.0 - p, rng);
  if (inversion_path(n, p)) return inversion(n, p, rng);
  return btrs(n, p, rng);
}

// CountMethod::kFast: Binomial(n, p) for n p q >= kNormalMinVariance from one standard normal
// through the Cornish-Fisher quantile map (workloads/cornish_fisher.h); its bounds are in
// binomial.h.
// For p > 1/2 it draws Binomial(n, 1 - p) and returns n minus that count (1 - p is exact there),
// in line rather than by a second call; `zig` is ziggurat_table(), looked up once by a caller
// that draws many.
inline std::int64_t binomial_fast(std::int64_t n, double p, FastBits& bits, const ZigguratTable& zig) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  const bool reflect = p > 0.5;
  if (reflect) p = 1.0 - p;
  const std::int64_t x =
      normal_path(n, p) ? normal_count(n, cornish_fisher_point(static_cast<double>(n), p, standard_normal(bits, zig)))
      : inversion_path(n, p) ? inversion(n, p, bits)
                             : btrs(n, p, bits);
  return reflect ? n - x : x;
}
std::int64_t binomial_fast(std::int64_t n, double p, FastBits& bits) {
  return binomial_fast(n, p, bits, ziggurat_table());
}

std::int64_t draw(std::int64_t n, double p, FastBits& bits, CountMethod method) {
  return method == CountMethod::kFast ? binomial_fast(n, p, bits) : binomial(n, p, bits);
}

}  // namespace

const std::array<double, kInversionReciprocals>& inversion_reciprocals() {
  static const std::array<double, kInversionReciprocals> table = [] {
    std::array<double, kInversionReciprocals> t{};
    for (int i = 1; i < kInversionReciprocals; ++i) t[static_cast<std::size_t>(i)] = 1.0 / i;
    return t;
  }();
  return table;
}

std::vector<RegistryEntry> count_methods() {
  return {{"fast", "binomial counts exactly below variance 6, from a Cornish-Fisher normal above (TV < 7e-4)"},
          {"exact", "every binomial count from its exact law (inversion, BTRS): slower, for checking"}};
}

CountMethod count_method_named(std::string_view name) {
  return registry_value<CountMethod>(count_methods(), name, "count method");
}

std::string_view count_method_name(CountMethod method) { return registry_name(count_methods(), method); }

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng) { return binomial(n, p, rng); }
std::int64_t binomial_inversion(std::int64_t n, double p, double u) { return invert(n, p, u); }
std::int64_t sample_binomial(std::int64_t n, double p, FastBits& bits, CountMethod method) {
  return draw(n, p, bits, method);
}

void sample_multinomial(std::int64_t n, std::span<const double> probs, FastBits& bits, std::span<std::int64_t> out,
                        CountMethod method) {
  double mass = 0;
  for (const double q : probs) mass += q;
  for (std::size_t i = 0; i < probs.size() && n > 0; ++i) {
    if (probs[i] <= 0) continue;
    const std::int64_t c =
        i + 1 == probs.size() || probs[i] >= mass ? n : draw(n, std::min(1.0, probs[i] / mass), bits, method);
    out[i] += c;
    n -= c;
    mass -= probs[i];
  }
}

void multinomial_conditionals(std::span<const double> probs, std::span<double> cond) {
  double mass = 0;
  for (const double q : probs) mass += q;
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] <= 0) {
      cond[i] = 0;
      continue;
    }
    cond[i] = i + 1 == probs.size() || probs[i] >= mass ? 1.0 : std::min(1.0, probs[i] / mass);
    mass -= probs[i];
  }
}

void sample_conditional(std::int64_t n, std::span<const double> cond, FastBits& bits, std::span<std::int64_t> out,
                        CountMethod method) {
  if (method == CountMethod::kFast) {  // the same draws, the method's test and the table look-up hoisted
    const ZigguratTable& zig = ziggurat_table();
    for (std::size_t i = 0; i < cond.size() && n > 0; ++i) {
      if (cond[i] <= 0) continue;
      const std::int64_t c = binomial_fast(n, cond[i], bits, zig);
      out[i] += c;
      n -= c;
    }
    return;
  }
  for (std::size_t i = 0; i < cond.size() && n > 0; ++i) {
    if (cond[i] <= 0) continue;
    const std::int64_t c = draw(n, cond[i], bits, method);  // cond 1: all that is left, no bits drawn
    out[i] += c;
    n -= c;
  }
}

}  // namespace moesim::workloads
