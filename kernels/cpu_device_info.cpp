#include "kernels/cpu_device_info.h"

#include <Eigen/Core>

#include <fstream>
#include <string>
#include <thread>

namespace moesim::kernels {
namespace {

// The value after the first ':' of the first line of `path` that starts with `key`, trimmed.
std::string proc_field(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string v = line.substr(colon + 1);
    const auto b = v.find_first_not_of(" \t");
    const auto e = v.find_last_not_of(" \t");
    return b == std::string::npos ? "" : v.substr(b, e - b + 1);
  }
  return "";
}

}  // namespace

DeviceInfo cpu_device_info(int threads_used) {
  DeviceInfo info;
  const std::string model = proc_field("/proc/cpuinfo", "model name");
  info.add("device", model.empty() ? "cpu" : model);
  info.add("sm_count", std::to_string(threads_used));  // the unit of parallel work the kernel uses
  info.add("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  const std::string mhz = proc_field("/proc/cpuinfo", "cpu MHz");
  info.add("sm_clock_mhz", mhz.empty() ? "n/a" : mhz);
  info.add("memory_clock_mhz", "n/a");
  const std::string mem_kb = proc_field("/proc/meminfo", "MemTotal");  // "23456789 kB"
  info.add("memory_bytes", mem_kb.empty() ? "n/a" : std::to_string(std::stoll(mem_kb) * 1024));
  info.add("driver", "n/a");
  info.add("cuda_runtime", "n/a");
  info.add("cublas", "n/a");
  info.add("nccl", "n/a");
  info.add("eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                        std::to_string(EIGEN_MINOR_VERSION));
#if defined(__clang__)
  info.add("compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
  info.add("compiler", "gcc " __VERSION__);
#endif
  return info;
}

}  // namespace moesim::kernels
