// `moesim calibrate fit`: a hardware profile from captured measurements (docs/calibration.md).
//
// GEMM rows are fitted per operand dtype (calibration/gemm_fit.h); all-to-all rows by
// non-negative least squares on relative error of the model in calibration/all_to_all_model.h
// (unknowns: latency >= 0 and 1 / efficiency). Two modes:
//
//   with a base profile (a preset or a YAML file: the device's spec sheet), the peaks, bandwidth
//   and line rates stay the base's and the fit finds achievable fractions (<= 1) of them;
//   without one (e.g. a CPU), every peak is set to the achieved rate the fit finds and the
//   fractions are 1; figures no measurement informs are taken from the capture's metadata
//   (memory capacity) or, on a CPU, from a measured neighbour (the NIC from the all-to-all), and
//   otherwise need --base (CalibrationError says so).
//
// The result carries the fitted figures and comments saying where each came from and how well
// the fit matched its own rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/hardware_yaml.h"
#include "calibration/hardware_yaml_writer.h"
#include "calibration/measurements.h"

namespace moesim::calibration {

enum class RowSelection { kAll, kEven, kOdd };

// Keeps the data rows of `file` whose position (0-based, per file) matches `selection`; throws
// CalibrationError when none is left.
void select_rows(MeasurementFile& file, RowSelection selection);

struct FitOptions {
  std::optional<HardwareFile> base;
  std::string base_label;  // how the base was named (preset name or file)
  std::string name;        // the profile's name; empty: "<base>-measured" or from the device name
};

struct FitResult {
  HardwareFile file;
  ProfileComments comments;
  std::vector<std::string> report;  // human-readable lines: parameters and residuals
};

FitResult fit_profile(const std::vector<MeasurementFile>& files, const FitOptions& options);

}  // namespace moesim::calibration
