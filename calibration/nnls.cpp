#include "calibration/nnls.h"

#include <Eigen/QR>

#include <algorithm>
#include <vector>

namespace moesim::calibration {
namespace {

// Least squares on the columns in `passive` (others zero).
Eigen::VectorXd solve_on(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    if (passive[static_cast<std::size_t>(j)]) cols.push_back(j);
  Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t i = 0; i < cols.size(); ++i) sub.col(static_cast<Eigen::Index>(i)) = a.col(cols[i]);
  const Eigen::VectorXd z = sub.colPivHouseholderQr().solve(b);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(a.cols());
  for (std::size_t i = 0; i < cols.size(); ++i) out(cols[i]) = z(static_cast<Eigen::Index>(i));
  return out;
}

}  // namespace

NnlsResult nnls(const Eigen::MatrixXd& a_in, const Eigen::VectorXd& b_in, const Eigen::VectorXd& lower) {
  const Eigen::Index n = a_in.cols();
  const Eigen::VectorXd b = b_in - a_in * lower;
  Eigen::VectorXd scale(n);
  Eigen::MatrixXd a = a_in;
  for (Eigen::Index j = 0; j < n; ++j) {
    const double norm = a.col(j).norm();
    scale(j) = norm > 0 ? norm : 1.0;
    a.col(j) /= scale(j);
  }
  std::vector<bool> passive(static_cast<std::size_t>(n), false), usable(static_cast<std::size_t>(n));
  for (Eigen::Index j = 0; j < n; ++j) usable[static_cast<std::size_t>(j)] = a_in.col(j).norm() > 0;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  const double tol = 1e-12 * std::max(1.0, b.norm());
  NnlsResult r;
  const int max_iter = 30 * static_cast<int>(n) + 30;
  while (r.iterations < max_iter) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index t = -1;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!passive[static_cast<std::size_t>(j)] && usable[static_cast<std::size_t>(j)] && w(j) > tol &&
          (t < 0 || w(j) > w(t)))
        t = j;
    if (t < 0) {
      r.converged = true;
      break;
    }
    passive[static_cast<std::size_t>(t)] = true;
    while (r.iterations++ < max_iter) {
      const Eigen::VectorXd z = solve_on(a, b, passive);
      bool feasible = true;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) feasible = false;
      if (feasible) {
        x = z;
        break;
      }
      double alpha = 1.0;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && z(j) <= 0) {
          const double d = x(j) - z(j);
          alpha = std::min(alpha, d > 0 ? x(j) / d : 0.0);
        }
      x += alpha * (z - x);
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<std::size_t>(j)] && x(j) <= tol) {
          passive[static_cast<std::size_t>(j)] = false;
          x(j) = 0;
        }
    }
  }
  r.residual_norm = (b - a * x).norm();
  r.x = lower + x.cwiseQuotient(scale);
  return r;
}

}  // namespace moesim::calibration
