// The named choices of a capture (`moesim calibrate capture` flags, calibration/capture.h): each a
// registry of names and one-line descriptions (shown by `moesim list` and in error messages)
// listed in the order of its enum. The command line and the calibration-data reader resolve a
// name once; everything below them passes the value, and text written out takes the registry's
// name, so the registries are the one place the names are spelled.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moesim::calibration {

struct CaptureEntry {
  std::string_view name;
  std::string_view description;
};

enum class CaptureBackend { kCpu, kCuda, kFake };            // --backend
enum class CaptureSuite { kGemm, kGroupedGemm, kAllToAll };  // --suite
enum class SplitDistribution { kUniform, kZipf };            // --distribution (calibration/token_split.h)
enum class CaptureClock { kWall, kCpu };                     // --clock
enum class CaptureLauncher { kLocal, kMpi };                 // --launcher
enum class ThrottlePolicy { kFlag, kRefuse };                // --throttled

std::vector<CaptureEntry> capture_backends();     // cpu, cuda, fake
std::vector<CaptureEntry> capture_suites();       // gemm, grouped-gemm, alltoall
std::vector<CaptureEntry> split_distributions();  // uniform, zipf
std::vector<CaptureEntry> capture_clocks();       // wall, cpu
std::vector<CaptureEntry> capture_launchers();    // local, mpi
std::vector<CaptureEntry> throttle_policies();    // flag, refuse

// The value named `name` of a registry listed in the order of Enum, or nullopt.
template <typename Enum>
std::optional<Enum> find_capture_value(const std::vector<CaptureEntry>& entries, std::string_view name) {
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name == name) return static_cast<Enum>(i);
  return std::nullopt;
}
// "unknown <what> 'x'; did you mean 'y'? (valid: a, b, c)" (models/did_you_mean.h).
std::string unknown_capture_name(std::string_view what, std::string_view name,
                                 const std::vector<CaptureEntry>& entries);

// Name -> value. An unknown name throws CalibrationError naming the flag:
// "--backend: unknown backend 'gpu'; did you mean 'cpu'? (valid: cpu, cuda, fake)".
CaptureBackend capture_backend(std::string_view name);
CaptureSuite capture_suite(std::string_view name);
SplitDistribution split_distribution(std::string_view name);
CaptureClock capture_clock(std::string_view name);
CaptureLauncher capture_launcher(std::string_view name);
ThrottlePolicy throttle_policy(std::string_view name);

// Value -> name.
std::string_view to_string(CaptureBackend backend);
std::string_view to_string(CaptureSuite suite);
std::string_view to_string(SplitDistribution distribution);
std::string_view to_string(CaptureClock clock);
std::string_view to_string(CaptureLauncher launcher);
std::string_view to_string(ThrottlePolicy policy);

}  // namespace moesim::calibration
