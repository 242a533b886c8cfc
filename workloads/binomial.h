// Binomial sampling for routing counts.
//
// Exact in both regimes: for means below kInversionMaxMean, sequential inversion of the CDF
// (cost grows with the mean, ~1 ns per unit); above it, Hörmann's BTRS transformed rejection with
// squeeze ("The generation of binomial random variates", J. Stat. Comput. Simul. 46, 1993), O(1)
// (~40 ns) whatever the mean. Both are independent of the standard library.
#pragma once

#include <cstdint>

#include "workloads/rng.h"

namespace moesim::workloads {

inline constexpr double kInversionMaxMean = 12.0;

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng);

}  // namespace moesim::workloads
