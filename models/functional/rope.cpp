#include "models/functional/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace moesim::models::functional {

double yarn_mscale(double factor, double a) {
  if (factor <= 1 || a == 0) return 1;
  return 0.1 * a * std::log(factor) + 1;
}

RopeTable::RopeTable(const RopeSpec& spec, int dim) : dim_(dim), interleaved_(spec.interleaved) {
  const int half = dim / 2;
  inv_freq_.resize(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i)
    inv_freq_[static_cast<std::size_t>(i)] = std::pow(spec.theta, -2.0 * i / static_cast<double>(dim));
  if (spec.yarn_factor <= 1) return;
  // The dimension index whose wavelength fits `rotations` times into the original context:
  // d · ln(L / (rotations · 2π)) / (2 ln θ).
  const auto correction_dim = [&](double rotations) {
    return dim * std::log(spec.yarn_original_context / (rotations * 2 * std::numbers::pi)) / (2 * std::log(spec.theta));
  };
  double low = correction_dim(spec.yarn_beta_fast), high = correction_dim(spec.yarn_beta_slow);
  if (spec.yarn_truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(dim - 1));
  if (high <= low) high = low + 0.001;
  for (int i = 0; i < half; ++i) {
    // ramp 0: high-frequency dimension, kept (extrapolated); ramp 1: interpolated by the factor.
    const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
    auto& f = inv_freq_[static_cast<std::size_t>(i)];
    f = f / spec.yarn_factor * ramp + f * (1 - ramp);
  }
  amplitude_ =
      yarn_mscale(spec.yarn_factor, spec.yarn_mscale) / yarn_mscale(spec.yarn_factor, spec.yarn_mscale_all_dim);
  const double m = yarn_mscale(spec.yarn_factor, spec.yarn_mscale_all_dim);
  softmax_factor_ = m * m;
}

void RopeTable::rotate(Matrix& x, std::span<const int> positions, int first_col, int heads, int stride) const {
  const int half = dim_ / 2;
  if (stride == 0) stride = dim_;
  std::vector<float> c(static_cast<std::size_t>(half)), s(static_cast<std::size_t>(half));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double pos = positions[static_cast<std::size_t>(r)];
    for (int i = 0; i < half; ++i) {
      const double angle = pos * inv_freq_[static_cast<std::size_t>(i)];
      c[static_cast<std::size_t>(i)] = static_cast<float>(std::cos(angle) * amplitude_);
      s[static_cast<std::size_t>(i)] = static_cast<float>(std::sin(angle) * amplitude_);
    }
    float* row = x.row(r).data();
    for (int h = 0; h < heads; ++h) {
      float* v = row + first_col + h * stride;
      for (int i = 0; i < half; ++i) {
        // Pair (2i, 2i+1) when interleaved, else (i, i + half); both turn by angle pos·f_i.
        float& a = interleaved_ ? v[2 * i] : v[i];
        float& b = interleaved_ ? v[2 * i + 1] : v[i + half];
        const float ci = c[static_cast<std::size_t>(i)], si = s[static_cast<std::size_t>(i)];
        const float x1 = a, x2 = b;
        a = x1 * ci - x2 * si;
        b = x2 * ci + x1 * si;
      }
    }
  }
}

}  // namespace moesim::models::functional
