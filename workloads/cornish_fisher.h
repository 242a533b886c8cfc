// Internal to workloads/: the fast count method's quantile map (binomial.h, CountMethod::kFast),
// written once for scalars and for GCC vector types so that a batch of draws computed four at a
// time (binomial_batch.cpp) gives exactly the counts of one-by-one draws: the same IEEE
// operations in the same order.
//
// For Binomial(n, p), p <= 1/2, and a standard normal z: the point mean + 1/2 + sd w(z) of a
// continuous law whose rounding to the nearest integer has the binomial's first four cumulants.
// Rounding adds 1/12 to the variance and takes 1/120 from the fourth cumulant (Sheppard's
// corrections), so the continuous law has k2 = npq - 1/12, k3 = npq (q - p), k4 = npq (1 - 6pq)
// + 1/120; w is the second-order Cornish-Fisher expansion of its quantile, with skewness
// g1 = k3 / k2^(3/2) and excess kurtosis g2 = k4 / k2^2:
//   w = z + g1 (z^2 - 1) / 6 + g2 (z^3 - 3 z) / 24 - g1^2 (2 z^3 - 5 z) / 36,
// computed with r = 1 / k2 as
//   sd w = k3 r (z^2 - 1) / 6 + sd (z + z r^2 [k4 (z^2 - 3) / 24 - k3^2 r (2 z^2 - 5) / 36]):
// the square root and the reciprocal depend on (n, p) only. The count is the integer part, kept
// within [0, n] (normal_count, binomial.h).
#pragma once

#include <cmath>

namespace moesim::workloads {

// Always in line: a binomial split's chain of draws (binomial.cpp) spends as much on the call as
// on the map (no contraction into fused multiply-adds either way: the build targets plain x86-64).
template <class T, class Sqrt>
[[gnu::always_inline]] inline T cornish_fisher_point(T nd, T p, T z, Sqrt sqrt_of) {
  const T q = 1.0 - p;
  const T mean = nd * p;
  const T var = mean * q;
  const T k2 = var - 1.0 / 12.0;
  const T k3 = var * (q - p);
  const T k4 = var * (1.0 - 6.0 * p * q) + 1.0 / 120.0;
  const T sd = sqrt_of(k2);
  const T r = 1.0 / k2;
  const T z2 = z * z;
  const T second = k4 * (1.0 / 24.0) * (z2 - 3.0) - k3 * k3 * r * (1.0 / 36.0) * (2.0 * z2 - 5.0);
  return mean + 0.5 + k3 * r * (1.0 / 6.0) * (z2 - 1.0) + sd * (z + z * r * r * second);
}

inline double cornish_fisher_point(double nd, double p, double z) {
  return cornish_fisher_point(nd, p, z, [](double v) { return std::sqrt(v); });
}

}  // namespace moesim::workloads
