// The named choices of a capture (`moesim calibrate capture` flags, calibration/capture.h): each a
// registry of names and one-line descriptions (shown by `moesim list` and in error messages)
// listed in the order of its enum. The command line and the calibration-data reader resolve a
// name once; everything below them passes the value, and text written out takes the registry's
// name, so the registries are the one place the names are spelled.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/calibration_error.h"
#include "models/registry.h"

namespace moesim::calibration {

using models::RegistryEntry;

enum class CaptureBackend { kCpu, kCuda, kFake };            // --backend
enum class CaptureSuite { kGemm, kGroupedGemm, kAllToAll };  // --suite
enum class CaptureDtype { kBf16, kFp16, kFp8, kFp32 };       // --dtype (GEMM suites)
enum class SplitDistribution { kUniform, kZipf };            // --distribution (calibration/token_split.h)
enum class CaptureClock { kWall, kCpu };                     // --clock
enum class CaptureLauncher { kLocal, kMpi };                 // --launcher
enum class ThrottlePolicy { kFlag, kRefuse };                // --throttled

std::vector<RegistryEntry> capture_backends();     // cpu, cuda, fake
std::vector<RegistryEntry> capture_suites();       // gemm, grouped-gemm, alltoall
std::vector<RegistryEntry> capture_dtypes();       // bf16, fp16, fp8, fp32
std::vector<RegistryEntry> split_distributions();  // uniform, zipf
std::vector<RegistryEntry> capture_clocks();       // wall, cpu
std::vector<RegistryEntry> capture_launchers();    // local, mpi
std::vector<RegistryEntry> throttle_policies();    // flag, refuse

// Each named choice's registry, the flag that names it and what its values are called.
struct CaptureChoice {
  std::vector<RegistryEntry> (*entries)() = nullptr;
  std::string_view flag, what;
};
template <typename Enum>
inline constexpr CaptureChoice capture_choice{};  // no registry: not a named choice
template <>
inline constexpr CaptureChoice capture_choice<CaptureBackend>{capture_backends, "--backend", "backend"};
template <>
inline constexpr CaptureChoice capture_choice<CaptureSuite>{capture_suites, "--suite", "suite"};
template <>
inline constexpr CaptureChoice capture_choice<CaptureDtype>{capture_dtypes, "--dtype", "dtype"};
template <>
inline constexpr CaptureChoice capture_choice<SplitDistribution>{split_distributions, "--distribution", "distribution"};
template <>
inline constexpr CaptureChoice capture_choice<CaptureClock>{capture_clocks, "--clock", "clock"};
template <>
inline constexpr CaptureChoice capture_choice<CaptureLauncher>{capture_launchers, "--launcher", "launcher"};
template <>
inline constexpr CaptureChoice capture_choice<ThrottlePolicy>{throttle_policies, "--throttled", "throttle policy"};

template <typename Enum>
concept CaptureEnum = capture_choice<Enum>
.entries != nullptr;

// Name -> value. An unknown name throws CalibrationError naming the flag:
// "--backend: unknown backend 'gpu'; did you mean 'cpu'? (valid: cpu, cuda, fake)".
template <CaptureEnum Enum>
Enum capture_value(std::string_view name) {
  constexpr CaptureChoice choice = capture_choice<Enum>;
  const auto entries = choice.entries();
  if (const auto value = models::registry_lookup<Enum>(entries, name)) return *value;
  throw CalibrationError(std::string(choice.flag) + ": " + models::unknown_registry_name(choice.what, name, entries));
}

// Value -> name.
template <CaptureEnum Enum>
std::string_view to_string(Enum value) {
  return models::registry_name(capture_choice<Enum>.entries(), value);
}

}  // namespace moesim::calibration
