// The `fitted` cost model (DESIGN.md §4): GEMMs and grouped GEMMs through the tile/wave curve of
// calibration/gemm_efficiency.h with the parameters fitted to the DeepGEMM H800 table; attention
// and memory-bound ops through the roofline at the fitted achievable fractions of peak MMA rate
// and HBM bandwidth. Devices other than the H800 use the same fitted fractions and overheads on
// their own spec-sheet peaks, bandwidth and SM count (see gemm_efficiency.h).
#pragma once

#include <memory>

#include "calibration/cost_model.h"
#include "calibration/gemm_efficiency.h"

namespace moesim::calibration {

std::unique_ptr<CostModel> make_fitted_cost_model(const HardwareProfile& hw,
                                                  const GemmFitParams& params = deepgemm_h800_fit());

}  // namespace moesim::calibration
