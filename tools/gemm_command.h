// What `moesim gemm` computes, apart from its printing, so that the Python package offers the
// same prediction with the same flags, defaults and messages (docs/python.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibration/cost_model.h"

namespace moesim::tools {

struct GemmOptions {
  std::string device = "h800";
  std::int64_t m = 0, n = 0, k = 0;
  int groups = 0;
  std::vector<std::int64_t> counts;
  std::string dtype = "fp8";
  std::string cost_model = "fitted";
};

// The command's flags, their defaults and range checks, on `cmd`.
void add_gemm_flags(CLI::App& cmd, GemmOptions& o);

struct GemmPrediction {
  std::string shape;        // "gemm m=64" or "grouped gemm 8 groups, 2048 rows"
  std::string device;       // the hardware profile's name
  std::int64_t groups = 0;  // 0: a plain GEMM
  std::int64_t rows = 0;    // m, or the sum of the group counts
  calibration::KernelCost cost;
  double peak_flops_per_s = 0;  // of the units the dtype runs on
  std::string units;            // those units ("fp8", "bf16", ...)
};

// Throws UsageError (tools/commands.h) with the command's message for a bad flag value.
GemmPrediction predict_gemm(const GemmOptions& o);

}  // namespace moesim::tools
