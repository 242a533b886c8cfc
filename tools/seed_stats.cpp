#include "tools/seed_stats.h"

#include <array>
#include <cmath>

namespace moesim::tools {
namespace {

// Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
constexpr std::array<double, 30> kT975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                          2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                          2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

}  // namespace

MetricCi confidence_interval(const std::vector<double>& samples) {
  MetricCi ci;
  const auto n = samples.size();
  if (n == 0) return ci;
  for (double x : samples) ci.mean += x;
  ci.mean /= static_cast<double>(n);
  if (n < 2) return ci;
  double ss = 0;
  for (double x : samples) ss += (x - ci.mean) * (x - ci.mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  const double t = n - 1 <= kT975.size() ? kT975[n - 2] : 1.96;
  ci.half_width = t * sd / std::sqrt(static_cast<double>(n));
  return ci;
}

const std::vector<SeedMetric>& seed_metrics() {
  static const std::vector<SeedMetric> metrics = {
      {"ttft_p50", "ms", 1e3, [](const sim::Summary& s) { return s.ttft.p50_s; }},
      {"ttft_p90", "ms", 1e3, [](const sim::Summary& s) { return s.ttft.p90_s; }},
      {"tpot_p50", "ms", 1e3, [](const sim::Summary& s) { return s.tpot.p50_s; }},
      {"tpot_p90", "ms", 1e3, [](const sim::Summary& s) { return s.tpot.p90_s; }},
      {"itl_p99", "ms", 1e3, [](const sim::Summary& s) { return s.itl.p99_s; }},
      {"e2e_p90", "s", 1.0, [](const sim::Summary& s) { return s.e2e.p90_s; }},
      {"output_tokens_per_gpu_s", "tok/s", 1.0, [](const sim::Summary& s) { return s.output_tokens_per_gpu_s; }},
      {"slo_attainment", "%", 100.0, [](const sim::Summary& s) { return s.slo_attainment; }},
  };
  return metrics;
}

}  // namespace moesim::tools
