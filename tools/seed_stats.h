// Confidence intervals across routing/arrival seeds (`moesim run --seeds N`).
//
// Each seed is an independent replication; a metric's 95 % confidence interval is
// mean ± t(0.975, n-1) · s / sqrt(n) with the sample standard deviation s (Student's t).
#pragma once

#include <string>
#include <vector>

#include "sim/metrics.h"

namespace moesim::tools {

struct MetricCi {
  double mean = 0;
  double half_width = 0;  // 95 % two-sided; 0 for a single sample
};

MetricCi confidence_interval(const std::vector<double>& samples);

struct SeedMetric {
  const char* name;
  const char* unit;
  double scale;  // from the summary's unit to `unit`
  double (*get)(const sim::Summary&);
};

// The metrics reported across seeds.
const std::vector<SeedMetric>& seed_metrics();

}  // namespace moesim::tools
