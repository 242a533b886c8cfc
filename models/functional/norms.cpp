#include "models/functional/norms.h"

#include <cmath>

namespace moesim::models::functional {

Matrix rms_norm(const Matrix& x, const Vector& weight, double eps) {
  Matrix y(x.rows(), x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double ms = static_cast<double>(x.row(r).squaredNorm()) / static_cast<double>(x.cols());
    const auto inv = static_cast<float>(1.0 / std::sqrt(ms + eps));
    y.row(r) = (x.row(r) * inv).cwiseProduct(weight.transpose());
  }
  return y;
}

void rms_norm_groups(Matrix& x, const Vector& weight, double eps) {
  const Eigen::Index n = weight.size();
  for (Eigen::Index r = 0; r < x.rows(); ++r)
    for (Eigen::Index c = 0; c + n <= x.cols(); c += n) {
      auto seg = x.row(r).segment(c, n);
      const double ms = static_cast<double>(seg.squaredNorm()) / static_cast<double>(n);
      seg = (seg * static_cast<float>(1.0 / std::sqrt(ms + eps))).cwiseProduct(weight.transpose());
    }
}

}  // namespace moesim::models::functional
