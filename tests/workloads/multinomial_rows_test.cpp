// MultinomialRows draws each row as Multinomial(n, q) whichever way it takes (tables for many
// equal rows, conditional binomials for a few rows with large cell means): row totals are
// exact, and every cell's sample mean and variance match n q and n q (1 - q).
#include "workloads/multinomial_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace moesim::workloads {
namespace {

// Draws `rows` rows of `n` over `weights` (one class) `reps` times and checks every cell.
void expect_multinomial_cells(std::size_t rows, std::int64_t n, const std::vector<double>& weights, int reps) {
  const std::size_t cols = weights.size();
  const double mass = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<double> q(weights);
  for (double& w : q) w /= mass;
  MultinomialRows sampler;
  Rng rng = make_stream(11, "multinomial-rows-test");
  const std::vector<std::int64_t> totals(rows, n);
  const std::vector<int> cls(rows, 0);
  std::vector<std::int64_t> out(rows * cols);
  std::vector<double> sum(cols, 0.0), sum2(cols, 0.0);
  for (int r = 0; r < reps; ++r) {
    sampler.draw(totals, cls, q, static_cast<int>(cols), rng, out);
    for (std::size_t i = 0; i < rows; ++i) {
      std::int64_t row_total = 0;
      for (std::size_t j = 0; j < cols; ++j) {
        const auto x = static_cast<double>(out[i * cols + j]);
        row_total += out[i * cols + j];
        sum[j] += x;
        sum2[j] += x * x;
      }
      ASSERT_EQ(row_total, n);
    }
  }
  const double draws = static_cast<double>(rows) * reps;
  for (std::size_t j = 0; j < cols; ++j) {
    const double mean = sum[j] / draws, var = (sum2[j] - sum[j] * sum[j] / draws) / (draws - 1);
    const double m = static_cast<double>(n) * q[j], v = m * (1 - q[j]);
    EXPECT_NEAR(mean, m, 5 * std::sqrt(v / draws)) << "column " << j;
    // Var(s^2) ~ 2 v^2 / N for near-normal cells (plus the excess kurtosis, small here).
    EXPECT_NEAR(var, v, 5 * v * std::sqrt(2.5 / draws)) << "column " << j;
  }
}

TEST(MultinomialRows, ManyEqualRowsOverManyColumns) {
  // A decode step's shape: 144 rows of 1,024 pairs over 144 columns (tables).
  std::vector<double> w(144);
  for (std::size_t j = 0; j < w.size(); ++j) w[j] = 1.0 / (1.0 + static_cast<double>(j % 17));
  expect_multinomial_cells(144, 1024, w, 40);
}

TEST(MultinomialRows, FewRowsWithLargeCellMeans) {
  // A hierarchical prefill's shape: a few rows of 65,536 pairs over 4 nodes (binomials).
  expect_multinomial_cells(3, 65536, {0.4, 0.3, 0.2, 0.1}, 2000);
}

TEST(MultinomialRows, ASingleRowOverManySmallCells) {
  expect_multinomial_cells(1, 1024, std::vector<double>(144, 1.0), 2000);
}

}  // namespace
}  // namespace moesim::workloads
