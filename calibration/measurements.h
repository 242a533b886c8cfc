// Typed measurements read from calibration data files (calibration/calibration_csv.h): the
// columns each suite writes, which of them a reader needs, and the checks of the metadata every
// capture carries. See docs/calibration.md for what each column means.
//
// Required metadata: `format` (moesim-calibration 1), `suite` (gemm | grouped-gemm | alltoall),
// `backend` (cpu | cuda | fake), `device`, `sm_count` (an integer >= 1: the device's SMs, or the CPU threads the
// kernel used). GEMM suites need the columns dtype, m_per_group, n, k, median_ns, p10_ns, p90_ns;
// the all-to-all suite needs ranks, max_send_bytes, max_recv_bytes, median_ns, p10_ns, p90_ns.
// Other columns are informative and may be absent; of them the readers keep `throttled` (a row
// measured while the GPU throttled, "yes") and the metadata `gemm_kernel` (what ran the GEMMs).
// Every violation throws CalibrationError "<file>:<line>: ..." at the offending metadata line,
// the header row, or the cell's row.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/calibration_csv.h"
#include "calibration/capture_names.h"
#include "models/dtype.h"

namespace moesim::calibration {

inline constexpr std::string_view kCalibrationFormat = "moesim-calibration 1";

// Columns the capture writes, in order.
const std::vector<std::string>& gemm_columns();
const std::vector<std::string>& all_to_all_columns();

struct Timing {
  double median_ns = 0, p10_ns = 0, p90_ns = 0;
};

struct GemmMeasurement {
  std::string source;
  int line = 0;
  models::DType dtype = models::DType::kBf16;
  bool grouped = true;  // false: the gemm suite (one dense GEMM)
  std::vector<std::int64_t> m_per_group;
  std::int64_t n = 0, k = 0;
  Timing time;
  bool throttled = false;  // measured while the GPU throttled (column `throttled`)
};

struct AllToAllMeasurement {
  std::string source;
  int line = 0;
  int ranks = 0;
  double max_send_bytes = 0;  // the busiest sender's bytes to other ranks
  double max_recv_bytes = 0;  // the busiest receiver's bytes from other ranks
  Timing time;
  bool throttled = false;
};

struct MeasurementFile {
  CalibrationTable table;
  CaptureSuite suite = CaptureSuite::kGemm;  // metadata `suite` and `backend`, resolved when read
  CaptureBackend backend = CaptureBackend::kCpu;
  std::string device;
  int sm_count = 0;
  std::string gemm_kernel;  // metadata `gemm_kernel`, "" when absent (older captures)
  std::vector<GemmMeasurement> gemm;
  std::vector<AllToAllMeasurement> all_to_all;
};

MeasurementFile read_measurements(CalibrationTable table);
MeasurementFile load_measurements(const std::filesystem::path& path);

}  // namespace moesim::calibration
