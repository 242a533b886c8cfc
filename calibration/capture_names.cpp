#include "calibration/capture_names.h"

#include "calibration/calibration_error.h"
#include "kernels/bench_types.h"
#include "models/did_you_mean.h"

namespace moesim::calibration {
namespace {

template <typename Enum>
Enum resolve(const std::vector<CaptureEntry>& entries, std::string_view name, std::string_view flag,
             std::string_view what) {
  if (const auto value = find_capture_value<Enum>(entries, name)) return *value;
  throw CalibrationError(std::string(flag) + ": " + unknown_capture_name(what, name, entries));
}

template <typename Enum>
std::string_view name_of(const std::vector<CaptureEntry>& entries, Enum value) {
  return entries.at(static_cast<std::size_t>(value)).name;
}

}  // namespace

std::vector<CaptureEntry> capture_backends() {
  return {{"cpu", "reference kernels on this CPU: Eigen FP32 GEMMs, threads exchanging through shared memory"},
          {"cuda", kernels::cuda_backend_built()
                       ? "cuBLAS/cuBLASLt GEMMs (bf16, fp16, fp8, fp32) and NCCL all-to-all on the local GPUs"
                       : "cuBLAS/cuBLASLt GEMMs and NCCL all-to-all (not in this build: no CUDA toolkit found)"},
          {"fake",
           "no device: analytic timings of a made-up H200 through the GPU plugin path, for dry runs "
           "(measures nothing)"}};
}

std::vector<CaptureEntry> capture_suites() {
  return {{"gemm", "dense GEMMs over a sweep of rows (m) at each (n, k)"},
          {"grouped-gemm", "grouped GEMMs: experts x rows per expert, uniform and zipf-skewed, at each (n, k)"},
          {"alltoall", "all-to-all-v over a sweep of bytes per peer, uniform and zipf-skewed receivers"}};
}

std::vector<CaptureEntry> split_distributions() {
  return {{"uniform", "equal shares of the rows (grouped-gemm) or bytes (alltoall)"},
          {"zipf", "group g gets a share proportional to 1 / (g + 1)^skew: a hot expert or receiving rank"}};
}

std::vector<CaptureEntry> capture_clocks() {
  return {{"wall", "steady_clock wall time"}, {"cpu", "thread CPU time: ignores other load (cpu backend)"}};
}

std::vector<CaptureEntry> capture_launchers() {
  return {{"local", "one process drives every rank"}, {"mpi", "one process per GPU under mpirun"}};
}

std::vector<CaptureEntry> throttle_policies() {
  return {{"flag", "a case run while the GPU throttled is kept, marked in column throttled"},
          {"refuse", "a case run while the GPU throttled is left out, listed with the skipped cases"}};
}

std::string unknown_capture_name(std::string_view what, std::string_view name,
                                 const std::vector<CaptureEntry>& entries) {
  std::vector<std::string_view> valid;
  for (const auto& e : entries) valid.push_back(e.name);
  return models::unknown_name_message(what, name, valid);
}

CaptureBackend capture_backend(std::string_view name) {
  return resolve<CaptureBackend>(capture_backends(), name, "--backend", "backend");
}
CaptureSuite capture_suite(std::string_view name) {
  return resolve<CaptureSuite>(capture_suites(), name, "--suite", "suite");
}
SplitDistribution split_distribution(std::string_view name) {
  return resolve<SplitDistribution>(split_distributions(), name, "--distribution", "distribution");
}
CaptureClock capture_clock(std::string_view name) {
  return resolve<CaptureClock>(capture_clocks(), name, "--clock", "clock");
}
CaptureLauncher capture_launcher(std::string_view name) {
  return resolve<CaptureLauncher>(capture_launchers(), name, "--launcher", "launcher");
}
ThrottlePolicy throttle_policy(std::string_view name) {
  return resolve<ThrottlePolicy>(throttle_policies(), name, "--throttled", "throttle policy");
}

std::string_view to_string(CaptureBackend backend) { return name_of(capture_backends(), backend); }
std::string_view to_string(CaptureSuite suite) { return name_of(capture_suites(), suite); }
std::string_view to_string(SplitDistribution distribution) { return name_of(split_distributions(), distribution); }
std::string_view to_string(CaptureClock clock) { return name_of(capture_clocks(), clock); }
std::string_view to_string(CaptureLauncher launcher) { return name_of(capture_launchers(), launcher); }
std::string_view to_string(ThrottlePolicy policy) { return name_of(throttle_policies(), policy); }

}  // namespace moesim::calibration
