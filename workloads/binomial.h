// Binomial sampling for routing counts.
//
// CountMethod::kExact is exact in both regimes: for means below kInversionMaxMean, sequential
// inversion of the CDF (cost grows with the mean); above it, Hörmann's BTRS transformed rejection
// with squeeze ("The generation of binomial random variates", J. Stat. Comput. Simul. 46, 1993),
// O(1) whatever the mean (~35 ns). Both are independent of the standard library.
//
// CountMethod::kFast (the simulator's default) draws the same way below variance
// kNormalMinVariance and, above it, maps one ziggurat normal (workloads/normal.h) through the
// Cornish-Fisher expansion of the quantile of a continuous law that, rounded to the nearest count,
// has the binomial's first four cumulants (workloads/cornish_fisher.h): ~6 ns instead of ~35. Its
// law is within 7e-4 of the binomial in total variation from variance 6 and 3e-4 from 10, falling
// further above; its upper tail between 1e-2 and 1e-3 within 3.5 % from variance 6, 1.5 % from 10
// (docs/workloads.md; tested). That is well inside the error of the pair model the counts come
// from: drawing a token's k experts as independent pairs already overstates each expert's count
// variance by 3 % (workloads/routing_model.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

inline constexpr double kInversionMaxMean = 12.0;
inline constexpr std::int64_t kInversionMaxN = std::int64_t{1} << 20;  // inversion's q^n by squaring up to here
inline constexpr double kNormalMinVariance = 6.0;

// CountMethod (workload_config.h) lists count_methods() in order.
std::vector<RegistryEntry> count_methods();
// Throws WorkloadError listing the valid names.
CountMethod count_method_named(std::string_view name);
std::string_view count_method_name(CountMethod method);

std::int64_t sample_binomial(std::int64_t n, double p, Rng& rng);  // exact

// Binomial(n, p), 0 < p <= 1/2, n p < kInversionMaxMean, is drawn by sequential inversion of one
// uniform: the count it gives for the uniform u.
std::int64_t binomial_inversion(std::int64_t n, double p, double u);

// Whether the exact method draws Binomial(n, p), p <= 1/2, by inversion (else by BTRS).
inline bool inversion_path(std::int64_t n, double p) { return static_cast<double>(n) * p < kInversionMaxMean; }
// Whether CountMethod::kFast draws Binomial(n, p), p <= 1/2, from a normal (n p q >= kNormalMinVariance).
inline bool normal_path(std::int64_t n, double p) {
  const double mean = static_cast<double>(n) * p;
  return mean * (1.0 - p) >= kNormalMinVariance;
}
// The count at a point of the fast method's quantile map (workloads/cornish_fisher.h): its integer
// part, within [0, n].
inline std::int64_t normal_count(std::int64_t n, double point) {
  if (!(point >= 1.0)) return 0;
  return point >= static_cast<double>(n) ? n : static_cast<std::int64_t>(point);
}
std::int64_t sample_binomial(std::int64_t n, double p, FastBits& bits, CountMethod method = CountMethod::kExact);

// Adds to out[i] a Multinomial(n, probs) draw by conditional binomials; probs need not be
// normalised (zero total mass draws nothing).
void sample_multinomial(std::int64_t n, std::span<const double> probs, FastBits& bits, std::span<std::int64_t> out,
                        CountMethod method = CountMethod::kExact);

// The same draw split in two, for weights used many times: multinomial_conditionals writes the
// conditional probabilities sample_multinomial derives from `probs` (cond[i]: the share of what
// is left that category i takes; 1 takes it all, 0 skips), computed by the same operations, so
// sample_conditional(n, cond, ...) consumes the same bits and adds the same counts to out.
void multinomial_conditionals(std::span<const double> probs, std::span<double> cond);
void sample_conditional(std::int64_t n, std::span<const double> cond, FastBits& bits, std::span<std::int64_t> out,
                        CountMethod method = CountMethod::kExact);

}  // namespace moesim::workloads
