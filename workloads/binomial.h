// Binomial sampling for routing counts.
//
// Exact in both regimes: for means below kInversionMaxMean, sequential inversion of the CDF
// (cost grows with the mean, ~1 ns per unit, and is independent of the standard library); above
// it, std::binomial_distribution (libstdc++'s rejection sampler, ~300 ns per draw whatever the
// mean). Decode-sized batches stay on the fast inversion path.
#pragma once

#include <cstdint>

#include "workloads/rng.h"

namespace moesim::workloads {

inline constexpr double kInversionMaxMean = 150.0;

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng);

}  // namespace moesim::workloads
