// Non-negative least squares against problems solved by hand.
#include <gtest/gtest.h>

#include "calibration/nnls.h"

namespace moesim::calibration {
namespace {

TEST(Nnls, InteriorSolutionIsTheLeastSquaresOne) {
  // y = 2 + 3 t sampled exactly at t = 0, 1, 2.
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 1, 1, 1, 2;
  Eigen::VectorXd b(3);
  b << 2, 5, 8;
  const NnlsResult r = nnls(a, b);
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.x(0), 2, 1e-12);
  EXPECT_NEAR(r.x(1), 3, 1e-12);
  EXPECT_NEAR(r.residual_norm, 0, 1e-12);
}

TEST(Nnls, NegativeCoefficientIsClampedAndTheRestRefitted) {
  // Unconstrained least squares of A = [1 0; 0 1; 1 1], b = [2, -1, 1] is x = (2, -1). With
  // x >= 0, x2 = 0 and x1 minimises (x1 - 2)² + 1 + (x1 - 1)²: x1 = 1.5.
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  Eigen::VectorXd b(3);
  b << 2, -1, 1;
  const NnlsResult r = nnls(a, b);
  EXPECT_NEAR(r.x(0), 1.5, 1e-12);
  EXPECT_EQ(r.x(1), 0);
}

TEST(Nnls, LowerBoundsAndUnusedColumns) {
  // x1 alone fits b = 2·a1 exactly, but x1 >= 3 is imposed: x1 = 3. Column 2 is all zero: it
  // stays at its lower bound.
  Eigen::MatrixXd a(2, 2);
  a << 1, 0, 2, 0;
  Eigen::VectorXd b(2), lower(2);
  b << 2, 4;
  lower << 3, 0.5;
  const NnlsResult r = nnls(a, b, lower);
  EXPECT_NEAR(r.x(0), 3, 1e-12);
  EXPECT_EQ(r.x(1), 0.5);
}

TEST(Nnls, BadlyScaledColumns) {
  // Columns a million apart in scale: the solution is still exact.
  Eigen::MatrixXd a(4, 2);
  a << 1e6, 1e-3, 2e6, 2e-3, 3e6, 1e-3, 4e6, 5e-3;
  const Eigen::Vector2d x(2e-6, 700);
  const NnlsResult r = nnls(a, a * x);
  EXPECT_NEAR(r.x(0) / x(0), 1, 1e-9);
  EXPECT_NEAR(r.x(1) / x(1), 1, 1e-9);
}

}  // namespace
}  // namespace moesim::calibration
