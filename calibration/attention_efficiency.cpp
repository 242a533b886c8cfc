#include "calibration/attention_efficiency.h"

#include <cmath>
#include <limits>

namespace moesim::calibration {

AttentionFitParams flash_attention_fit() { return {}; }

double prefill_attention_fraction(const AttentionFitParams& p, double kv_span) {
  if (kv_span <= 0) return p.prefill_fraction;
  return p.prefill_fraction * kv_span / (kv_span + p.prefill_half_len);
}

AttentionFitParams fit_prefill_attention(std::span<const AttentionSpeedRow> rows, double peak_tflops) {
  AttentionFitParams best;
  double best_error = std::numeric_limits<double>::infinity();
  if (rows.empty() || peak_tflops <= 0) return best;
  for (double half = 1; half <= 10'000; half += 1) {
    // For a fixed half length the best fraction is the geometric mean of the rows' ratios.
    double log_fraction = 0;
    for (const auto& r : rows) log_fraction += std::log(r.tflops / (peak_tflops * r.seqlen / (r.seqlen + half)));
    log_fraction /= static_cast<double>(rows.size());
    double error = 0;
    for (const auto& r : rows) {
      const double d = log_fraction + std::log(peak_tflops * r.seqlen / (r.seqlen + half)) - std::log(r.tflops);
      error += d * d;
    }
    if (error < best_error) {
      best_error = error;
      best.prefill_fraction = std::exp(log_fraction);
      best.prefill_half_len = half;
    }
  }
  return best;
}

}  // namespace moesim::calibration
