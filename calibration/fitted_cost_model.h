// The `fitted` cost model (docs/design.md §4): GEMMs and grouped GEMMs through the tile/wave curve of
// calibration/gemm_efficiency.h; attention and memory-bound ops through the roofline at the
// fitted achievable fractions of peak MMA rate and HBM bandwidth.
//
// Parameters: a profile measured with `moesim calibrate fit` carries its own per dtype
// (HardwareProfile::gemm_fit; a dtype it has no fit for uses its first fit); every other profile
// uses the parameters fitted to the DeepGEMM H800 table, applied to its own spec-sheet peaks,
// bandwidth and SM count (see gemm_efficiency.h). Memory-bound ops and attention use the
// profile's first fit (or the H800 fit).
#pragma once

#include <memory>

#include "calibration/cost_model.h"
#include "calibration/gemm_efficiency.h"

namespace moesim::calibration {

std::unique_ptr<CostModel> make_fitted_cost_model(const HardwareProfile& hw);
// The same model with `params` for every dtype, whatever the profile carries.
std::unique_ptr<CostModel> make_fitted_cost_model(const HardwareProfile& hw, const GemmFitParams& params);

}  // namespace moesim::calibration
