#include "calibration/gemm_fit.h"

#include <algorithm>
#include <cmath>

#include "calibration/calibration_error.h"
#include "calibration/nnls.h"

namespace moesim::calibration {
namespace {

enum Unknown { kU, kV, kFixed, kGroup, kTile, kUnknowns };

double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

double objective(std::span<const GemmMeasurement> rows, const GemmDevice& dev, const GemmFitParams& p) {
  double s = 0;
  for (const auto& r : rows) {
    const double e = relative_error(estimate_row(r, dev, p).time_ns, r.time.median_ns);
    s += e * e;
  }
  return s;
}

struct Assignment {
  std::vector<int> block_m, block_n;
  std::vector<std::int64_t> waves;
  std::vector<bool> compute;
  bool operator==(const Assignment&) const = default;
};

// One alternation step: linearise at `p`, solve, return the new parameters.
GemmFitParams solve_at(std::span<const GemmMeasurement> rows, const GemmFitSetup& s, const GemmFitParams& p,
                       Assignment& assignment, std::vector<bool>& informed) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, kUnknowns);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  assignment = {};
  const int sms = std::max(s.device.sm_count, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const GemmMeasurement& r = rows[static_cast<std::size_t>(i)];
    const GemmEstimate e = estimate_row(r, s.device, p);
    assignment.block_m.push_back(e.block_m);
    assignment.block_n.push_back(e.block_n);
    assignment.waves.push_back(e.waves);
    assignment.compute.push_back(e.compute_bound);
    if (e.compute_bound) {
      a(i, kU) = static_cast<double>(e.waves) * 2.0 * e.block_m * e.block_n * static_cast<double>(r.k) * sms /
                 s.device.peak_flops * 1e9;
      a(i, kTile) = static_cast<double>(e.waves);
    } else {
      a(i, kV) = e.bytes / s.device.hbm_bytes_per_s * 1e9;
    }
    a(i, kFixed) = 1;
    a(i, kGroup) = r.grouped ? e.active_groups : 0;
    a.row(i) /= r.time.median_ns;
  }
  Eigen::VectorXd lower = Eigen::VectorXd::Zero(kUnknowns);
  if (s.fractions_at_most_one) lower(kU) = lower(kV) = 1;
  const NnlsResult x = nnls(a, b, lower);
  GemmFitParams q = p;
  for (int j = 0; j < kUnknowns; ++j) informed[static_cast<std::size_t>(j)] = a.col(j).norm() > 0;
  if (informed[kU] && x.x(kU) > 0) q.mma_fraction = 1 / x.x(kU);
  if (informed[kV] && x.x(kV) > 0) q.hbm_fraction = 1 / x.x(kV);
  if (informed[kFixed]) q.fixed_overhead_ns = x.x(kFixed);
  if (informed[kGroup]) q.per_group_overhead_ns = x.x(kGroup);
  if (informed[kTile]) q.per_tile_overhead_ns = x.x(kTile);
  return q;
}

}  // namespace

GemmEstimate estimate_row(const GemmMeasurement& row, const GemmDevice& device, const GemmFitParams& p) {
  const double e = models::bytes_per_element(row.dtype);
  if (!row.grouped) return estimate_gemm(row.m_per_group.front(), row.n, row.k, e, device, p);
  return estimate_grouped_gemm(row.m_per_group, row.n, row.k, e, GroupedLayout::kMasked, device, p);
}

GemmFitOutcome fit_gemm_params(std::span<const GemmMeasurement> rows, const GemmFitSetup& s) {
  if (rows.empty()) throw CalibrationError("calibrate fit: no GEMM rows to fit");
  GemmFitOutcome best;
  double best_j = INFINITY;
  std::vector<bool> best_informed;
  const double shortest = std::min_element(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
                            return x.time.median_ns < y.time.median_ns;
                          })->time.median_ns;
  // Starts: fractions over a grid; per-tile overhead none or a tenth of the shortest row (it
  // sways the tile choice); fixed overhead a quarter of the shortest row.
  for (double mma : {0.25, 0.5, 0.8, 1.0})
    for (double hbm : {0.25, 0.5, 0.8, 1.0})
      for (double tile : {0.0, 0.1 * shortest}) {
        GemmFitParams p;
        p.block_m = s.block_m;
        p.block_n = s.block_n;
        p.mma_fraction = mma;
        p.hbm_fraction = hbm;
        p.per_tile_overhead_ns = tile;
        p.fixed_overhead_ns = 0.25 * shortest;
        std::vector<bool> informed(kUnknowns, false);
        Assignment prev, cur;
        GemmFitParams best_here = p;
        double best_here_j = objective(rows, s.device, p);
        for (int it = 0; it < 40; ++it) {
          p = solve_at(rows, s, p, cur, informed);
          const double j = objective(rows, s.device, p);
          if (j < best_here_j) best_here_j = j, best_here = p;
          if (it > 0 && cur == prev) break;
          prev = cur;
        }
        if (best_here_j < best_j) {
          best_j = best_here_j;
          best.params = best_here;
          best_informed = informed;
        }
      }

  GemmFitParams& p = best.params;
  best.rows = static_cast<int>(rows.size());
  std::vector<double> errors;
  for (const auto& r : rows) {
    const GemmEstimate e = estimate_row(r, s.device, p);
    best.memory_bound_rows += e.compute_bound ? 0 : 1;
    errors.push_back(std::fabs(relative_error(e.time_ns, r.time.median_ns)));
  }
  if (best.memory_bound_rows == 0) {
    p.hbm_fraction = s.fallback_hbm_fraction;
    best.not_identified.push_back("hbm_fraction");
  }
  const char* names[kUnknowns] = {"mma_fraction", "hbm_fraction", "fixed_overhead", "per_group_overhead",
                                  "per_tile_overhead"};
  for (int j = 0; j < kUnknowns; ++j)
    if (j != kV && !best_informed[static_cast<std::size_t>(j)]) best.not_identified.push_back(names[j]);
  double sq = 0;
  for (double e : errors) sq += e * e;
  best.rms_relative_error = std::sqrt(sq / static_cast<double>(errors.size()));
  std::sort(errors.begin(), errors.end());
  best.median_relative_error =
      errors.size() % 2 ? errors[errors.size() / 2] : 0.5 * (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]);
  best.max_relative_error = errors.back();
  return best;
}

}  // namespace moesim::calibration
