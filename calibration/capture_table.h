// The calibration table a capture writes (calibration/calibration_csv.h): metadata (the bench's
// device info, then the suite, kernel and timing settings, what was skipped, throttled or timed
// with an exposed launch) and one row per measured case (calibration/measurements.h lists the
// columns). Kept apart from the runner (calibration/capture.cpp), which only measures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibration/calibration_csv.h"
#include "calibration/capture.h"
#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

namespace moesim::calibration {

// One case of a suite: the kernel's input, the descriptive cells of its row, and what every
// round measured.
struct CapturedCase {
  kernels::GemmShape gemm;
  kernels::AllToAllPattern a2a;
  SplitDistribution distribution = SplitDistribution::kUniform;
  int groups = 1;
  std::int64_t tokens = 0, peer_bytes = 0;
  std::string what;
  std::string algorithm;                   // all-to-all: what moved the bytes (the bench says)
  kernels::Timings timings;                // every round's timed repetitions
  std::vector<kernels::Timings> per_rank;  // all-to-all: each rank's, every round's
  kernels::DeviceState state;              // merged over the rounds
  int exposed_launches = 0;
  std::string skipped;  // why the case is left out (the backend refused it, or it ran throttled)
};

// The settings the capture ran with, after defaults.
struct ResolvedSettings {
  CaptureDtype dtype = CaptureDtype::kFp32;
  int warmup = 0, repetitions = 0, rounds = 0;
};

// Throws CalibrationError when the bench's device info repeats a key or uses one the capture
// writes itself (a file with a key twice would not load back).
CalibrationTable capture_table(const CaptureOptions& options, const ResolvedSettings& settings,
                               const kernels::DeviceInfo& device, const std::string& gemm_kernel,
                               const std::vector<CapturedCase>& cases);

}  // namespace moesim::calibration
