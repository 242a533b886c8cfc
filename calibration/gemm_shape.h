// GemmShape: the [k × n] weight of one GEMM of a batch costed together (e.g. an expert MLP's
// gate-up and down projections over the same rows).
#pragma once

#include <cstdint>

namespace moesim::calibration {

struct GemmShape {
  std::int64_t n = 0;
  std::int64_t k = 0;
};

}  // namespace moesim::calibration
