// Binomial sampling for routing counts.
//
// Exact in both regimes: for means below kInversionMaxMean, sequential inversion of the CDF
// (cost grows with the mean, ~1 ns per unit); above it, Hörmann's BTRS transformed rejection with
// squeeze ("The generation of binomial random variates", J. Stat. Comput. Simul. 46, 1993), O(1)
// (~40 ns) whatever the mean. Both are independent of the standard library.
#pragma once

#include <cstdint>
#include <span>

#include "workloads/rng.h"

namespace moesim::workloads {

inline constexpr double kInversionMaxMean = 12.0;

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng);
std::int64_t sample_binomial(std::int64_t n, double p, FastBits& bits);

// Adds to out[i] a Multinomial(n, probs) draw by conditional binomials; probs need not be
// normalised (zero total mass draws nothing).
void sample_multinomial(std::int64_t n, std::span<const double> probs, FastBits& bits, std::span<std::int64_t> out);

// The same draw split in two, for weights used many times: multinomial_conditionals writes the
// conditional probabilities sample_multinomial derives from `probs` (cond[i]: the share of what
// is left that category i takes; 1 takes it all, 0 skips), computed by the same operations, so
// sample_conditional(n, cond, ...) consumes the same bits and adds the same counts to out.
void multinomial_conditionals(std::span<const double> probs, std::span<double> cond);
void sample_conditional(std::int64_t n, std::span<const double> cond, FastBits& bits, std::span<std::int64_t> out);

}  // namespace moesim::workloads
