// Summary statistics of per-repetition timings: median and spread (p10, p90), minimum, count.
// Percentiles interpolate linearly between order statistics (the "linear" method of NumPy's
// percentile), so the median of an even count is the mean of the two middle values.
#pragma once

#include "kernels/bench_types.h"

namespace moesim::kernels {

struct TimingSummary {
  int count = 0;
  double median_ns = 0;
  double p10_ns = 0;
  double p90_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
};

// Throws KernelError for an empty set of timings.
TimingSummary summarize(const Timings& timings);
// The q-quantile (0 <= q <= 1) of `sorted` (ascending, non-empty).
double quantile_of_sorted(const Timings& sorted, double q);

}  // namespace moesim::kernels
