// `moesim calibrate check`: how well a hardware profile predicts measurements. Each GEMM row is
// predicted by the profile's `fitted` cost model (the one scenarios use), each all-to-all row by
// calibration/all_to_all_model.h with the profile's scale-up line rate, efficiency and latency
// (the cluster defaults when the profile has no measured ones). The error of a row is
// |predicted - measured| / measured, against the median time.
#pragma once

#include <string>
#include <vector>

#include "calibration/hardware_profile.h"
#include "calibration/measurements.h"

namespace moesim::calibration {

struct CheckRow {
  std::string source;
  int line = 0;
  std::string what;  // "grouped-gemm bf16 8 groups [..] n=.. k=.." etc.
  double measured_ns = 0;
  double predicted_ns = 0;
  double error = 0;  // relative, signed: predicted / measured - 1
};

struct CheckResult {
  std::vector<CheckRow> rows;
  double median_error = 0;  // of |error|
  double max_error = 0;
  double rms_error = 0;
};

CheckResult check_profile(const HardwareProfile& profile, const std::vector<MeasurementFile>& files);

}  // namespace moesim::calibration
