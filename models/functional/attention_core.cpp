#include "models/functional/attention_core.h"

#include <algorithm>
#include <cmath>

namespace moesim::models::functional {

void masked_softmax(Matrix& scores, float scale, const AttentionMask& m, const float* sink) {
  const auto cols = static_cast<int>(scores.cols());
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const int pos = m.past + static_cast<int>(i);
    int lo = 0;
    if (m.window > 0) lo = m.kind == WindowKind::kSliding ? std::max(0, pos - m.window + 1) : pos / m.window * m.window;
    const int hi = std::min(pos, cols - 1);  // inclusive
    auto row = scores.row(i);
    float max = sink ? *sink : -INFINITY;
    for (int j = lo; j <= hi; ++j) max = std::max(max, row(j) * scale);
    double sum = sink ? std::exp(static_cast<double>(*sink - max)) : 0.0;
    for (int j = lo; j <= hi; ++j) sum += row(j) = std::exp(row(j) * scale - max);
    const auto inv = static_cast<float>(1.0 / sum);
    for (int j = 0; j < cols; ++j) row(j) = (j >= lo && j <= hi) ? row(j) * inv : 0.0f;
  }
}

}  // namespace moesim::models::functional
