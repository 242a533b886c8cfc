#include "workloads/binomial_lanes.h"

#include <algorithm>
#include <array>

#include "workloads/binomial.h"

namespace moesim::workloads {
namespace {

using D4 = double __attribute__((vector_size(32)));
using I4 = std::int64_t __attribute__((vector_size(32)));

constexpr int kReciprocals = kInversionReciprocals;

bool any(const I4& mask) { return (mask[0] | mask[1] | mask[2] | mask[3]) != 0; }

// P(k) / P(k - 1) = a / k - s, by the table below kReciprocals as binomial.cpp computes it (the same
// k in every lane).
__attribute__((always_inline)) inline void ratio(const D4& a, const D4& s, std::int64_t k,
                                                 const std::array<double, kReciprocals>& inv, D4& r) {
  r = (k < kReciprocals ? a * inv[static_cast<std::size_t>(k)] : a / static_cast<double>(k)) - s;
}

// Four inversions in lockstep; binomial.cpp's `invert`, lane by lane.
__attribute__((always_inline)) inline void four(const std::int64_t* n, const double* p, const double* u,
                                                std::int64_t* out, const std::array<double, kReciprocals>& inv) {
  D4 pp, uu, nd1;
  I4 nn;
  for (int l = 0; l < 4; ++l) {
    pp[l] = p[l];
    uu[l] = u[l];
    nn[l] = n[l];
    nd1[l] = static_cast<double>(n[l] + 1);
  }
  const D4 q = 1.0 - pp;
  const D4 s = pp / q;
  const D4 a = nd1 * s;
  // q^n by squaring: each lane multiplies by its base where its exponent has a bit, else by 1.
  const D4 one = {1.0, 1.0, 1.0, 1.0};
  D4 pmf = one, base = q;
  for (I4 e = nn; any(e > 0); e >>= 1) {
    const I4 bit = -(e & 1);  // all ones where the bit is set
    const D4 factor = reinterpret_cast<D4>((reinterpret_cast<I4>(base) & bit) | (reinterpret_cast<I4>(one) & ~bit));
    pmf *= factor;
    base *= base;
  }
  D4 cdf = pmf;
  I4 below = {0, 0, 0, 0};
  I4 active = {-1, -1, -1, -1};
  for (std::int64_t x = 0;;) {
    D4 r1, r2, r3, r4;
    ratio(a, s, x + 1, inv, r1);
    ratio(a, s, x + 2, inv, r2);
    ratio(a, s, x + 3, inv, r3);
    ratio(a, s, x + 4, inv, r4);
    const D4 p1 = pmf * r1, c1 = cdf + p1;
    const D4 p2 = p1 * r2, c2 = c1 + p2;
    const D4 p3 = p2 * r3, c3 = c2 + p3;
    const D4 p4 = p3 * r4, c4 = c3 + p4;
    const I4 passed = (uu > cdf) + (uu > c1) + (uu > c2) + (uu > c3);  // minus the steps below u
    below -= passed & active;
    pmf = p4;
    cdf = c4;
    x += 4;
    const I4 xs = {x, x, x, x};
    active &= (uu > cdf) & (xs < nn);
    if (!any(active)) break;
  }
  for (int l = 0; l < 4; ++l) out[l] = std::min(below[l], n[l]);
}

__attribute__((always_inline)) inline void all(std::span<const std::int64_t> n, std::span<const double> p,
                                               std::span<const double> u, std::span<std::int64_t> out) {
  const auto& inv = inversion_reciprocals();
  std::size_t i = 0;
  for (; i + 4 <= n.size(); i += 4) four(n.data() + i, p.data() + i, u.data() + i, out.data() + i, inv);
  for (; i < n.size(); ++i) out[i] = binomial_inversion(n[i], p[i], u[i]);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2"))) void all_avx2(std::span<const std::int64_t> n, std::span<const double> p,
                                              std::span<const double> u, std::span<std::int64_t> out) {
  all(n, p, u, out);
}
#endif

void all_baseline(std::span<const std::int64_t> n, std::span<const double> p, std::span<const double> u,
                  std::span<std::int64_t> out) {
  all(n, p, u, out);
}

}  // namespace

void binomial_inversions(std::span<const std::int64_t> n, std::span<const double> p, std::span<const double> u,
                         std::span<std::int64_t> out, Lanes lanes) {
#if defined(__x86_64__) || defined(__i386__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2 && lanes == Lanes::kBest) {
    all_avx2(n, p, u, out);
    return;
  }
#endif
  all_baseline(n, p, u, out);
}

}  // namespace moesim::workloads
