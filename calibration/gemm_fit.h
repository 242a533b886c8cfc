// Fitting the tile/wave GEMM model (calibration/gemm_efficiency.h) to measured GEMMs.
//
// With the tile choice, the wave count and the bound (compute or memory) of every row fixed, the
// model is linear in five unknowns:
//
//   compute-bound row:  t = waves·(2·BM·BN·K·SMs / peak)·u + waves·per_tile + fixed + G·per_group
//   memory-bound row:   t = (bytes / bandwidth)·v + fixed + G·per_group
//
// where u = 1 / mma_fraction, v = 1 / hbm_fraction and G the non-empty groups (0 for a dense
// GEMM). Dividing each row by its measured time turns least squares into a fit of relative
// errors; the unknowns are found by non-negative least squares (calibration/nnls.h; u, v >= 1
// when the peaks are the spec sheet's, so that fractions stay <= 1). The tile choice and the
// bound depend on the unknowns, so the fit alternates: estimate every row with the current
// parameters, solve, repeat until the assignment stops changing, from a grid of 32 starts
// (fractions and per-tile overhead), keeping the parameters with the smallest sum of squared relative errors under the
// real (max, ceil) model. A parameter that no row informs (no memory-bound row, no grouped row,
// ...) keeps its starting value and is reported as not identified.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "calibration/gemm_efficiency.h"
#include "calibration/measurements.h"

namespace moesim::calibration {

struct GemmFitSetup {
  GemmDevice device;  // SMs, the nominal peak of the rows' dtype, the nominal bandwidth
  bool fractions_at_most_one = true;
  std::vector<int> block_m = default_block_m();
  std::vector<int> block_n = default_block_n();
  double fallback_hbm_fraction = 1.0;  // when no row is memory-bound
};

struct GemmFitOutcome {
  GemmFitParams params;
  int rows = 0;
  int memory_bound_rows = 0;
  double rms_relative_error = 0;
  double median_relative_error = 0;
  double max_relative_error = 0;
  std::vector<std::string> not_identified;  // parameter names
};

// The model's time for one measured row (masked layout, as the `fitted` cost model uses).
GemmEstimate estimate_row(const GemmMeasurement& row, const GemmDevice& device, const GemmFitParams& p);

// Throws CalibrationError when `rows` is empty.
GemmFitOutcome fit_gemm_params(std::span<const GemmMeasurement> rows, const GemmFitSetup& setup);

}  // namespace moesim::calibration
