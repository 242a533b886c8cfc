// `moesim calibrate capture`: measures a suite of GEMMs, grouped GEMMs or all-to-alls on a
// backend (kernels/) and returns them as a calibration table (calibration/calibration_csv.h)
// with the device's metadata. The default cases of each suite and backend are in
// calibration/capture_cases.cpp; every list can be replaced by the caller.
//
// Repetitions run in `rounds` interleaved passes over all cases (each pass warms up, then times
// reps/rounds runs of every case): a burst of load from other processes then spreads over many
// cases instead of spoiling one, and the median of the pooled timings ignores it. The CPU
// default is 6 rounds; GPUs, which nobody shares, use 1.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calibration/calibration_csv.h"
#include "calibration/capture_names.h"
#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

namespace moesim::calibration {

// The named choices (backend, suite, distributions, launcher, clock, throttled) are values of the
// registries of calibration/capture_names.h.
struct CaptureOptions {
  CaptureBackend backend = CaptureBackend::kCpu;
  CaptureSuite suite = CaptureSuite::kGemm;
  std::optional<CaptureDtype> dtype;                          // GEMM suites; none: fp32 on cpu, bf16 otherwise
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;  // (n, k); empty: the suite's
  std::vector<std::int64_t> m;                                // gemm: rows; grouped-gemm: mean rows per group
  std::vector<int> groups;                                    // grouped-gemm
  std::vector<SplitDistribution> distributions;               // empty: the suite's (uniform, zipf)
  double skew = 1.0;                                          // zipf exponent
  std::int64_t max_tokens = 0;                                // grouped-gemm: skip groups × m above (0: none)
  std::vector<std::int64_t> sizes;                            // alltoall: mean bytes per peer
  int ranks = 0;                                              // alltoall: cpu threads (default 2); cuda GPUs (0: all)
  CaptureLauncher launcher = CaptureLauncher::kLocal;         // alltoall on cuda: local | mpi
  int device = 0;                                             // cuda: GPU index (GEMM suites)
  int warmup = -1, repetitions = -1, rounds = -1;             // -1: the backend's default
  bool flush_cache = true;                                    // cuda: scrub L2 before each timed run
  CaptureClock clock = CaptureClock::kWall;                   // cpu: wall (steady_clock) or cpu (thread CPU time)
  // A case run while the GPU throttled (kernels/device_state.h): flag (kept, marked in column
  // `throttled`) or refuse (left out, listed with the skipped cases).
  ThrottlePolicy throttled = ThrottlePolicy::kFlag;
  std::string command_line;  // recorded in the metadata
};

// Where run_capture gets its benchmarks: the backend's factories (kernels/) unless a caller hands
// in others (tests: kernels/fake_benches.h with a scripted device). Each is called at most once.
struct CaptureBenches {
  std::function<std::unique_ptr<kernels::GemmBench>()> gemm;
  std::function<std::unique_ptr<kernels::AllToAllBench>()> all_to_all;
};

struct CaptureOutput {
  CalibrationTable table;
  bool is_root = true;  // false on MPI ranks other than 0: do not write
  int cases = 0;        // rows written
};

// Called after each measured case: cases done so far (over all rounds), total, description.
using CaptureProgress = std::function<void(int done, int total, const std::string& what)>;

// Throws CalibrationError naming the flag for bad options, kernels::KernelError when the
// backend cannot run (no GPU, an operand type it lacks, ...). A GEMM case the backend refuses
// (e.g. no cuBLASLt algorithm for a shape) is left out and listed in the metadata
// (skipped_cases, skipped_1, ...); if every case is refused, the first refusal is thrown. So is
// a case run while the GPU throttled, with throttled = refuse.
CaptureOutput run_capture(const CaptureOptions& options, const CaptureProgress& progress = {});
// The same with the benchmarks `benches` makes (a missing factory: the backend's own).
CaptureOutput run_capture(const CaptureOptions& options, const CaptureBenches& benches,
                          const CaptureProgress& progress = {});

}  // namespace moesim::calibration
