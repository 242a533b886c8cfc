// Non-negative least squares: minimise ||A x - b||₂ subject to x >= lower (elementwise), by the
// active-set method of Lawson and Hanson ("Solving Least Squares Problems", 1974, ch. 23),
// after shifting x' = x - lower and scaling each column of A to unit norm. A column of zeros
// (a parameter no row depends on) stays at its lower bound. Used by `moesim calibrate fit`.
#pragma once

#include <Eigen/Core>

namespace moesim::calibration {

struct NnlsResult {
  Eigen::VectorXd x;
  double residual_norm = 0;
  int iterations = 0;
  bool converged = false;
};

NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& lower);
inline NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  return nnls(a, b, Eigen::VectorXd::Zero(a.cols()));
}

}  // namespace moesim::calibration
