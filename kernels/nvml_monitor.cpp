#include "kernels/nvml_monitor.h"

#include <dlfcn.h>

namespace moesim::kernels {
namespace {

// NVML's C API (NVML API reference): every call returns nvmlReturn_t, 0 for NVML_SUCCESS;
// nvmlDevice_t is an opaque pointer; nvmlClockType_t has NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2.
using Init = int (*)();
using Shutdown = int (*)();
using DriverVersion = int (*)(char*, unsigned);
using HandleByPci = int (*)(const char*, void**);
using ClockInfo = int (*)(void*, int, unsigned*);
using Reasons = int (*)(void*, unsigned long long*);
constexpr int kNvmlSuccess = 0;
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;

template <typename F>
F symbol(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

}  // namespace

NvmlMonitor::NvmlMonitor(const std::vector<std::string>& pci_bus_ids, const char* library) {
  lib_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib_) return;
  const auto init = symbol<Init>(lib_, "nvmlInit_v2");
  const auto by_pci = symbol<HandleByPci>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  shutdown_ = reinterpret_cast<Fn>(symbol<Shutdown>(lib_, "nvmlShutdown"));
  driver_ = reinterpret_cast<Fn>(symbol<DriverVersion>(lib_, "nvmlSystemGetDriverVersion"));
  clock_ = reinterpret_cast<Fn>(symbol<ClockInfo>(lib_, "nvmlDeviceGetClockInfo"));
  // The newer name first (drivers from R535), then the older one it replaced.
  reasons_ = reinterpret_cast<Fn>(symbol<Reasons>(lib_, "nvmlDeviceGetCurrentClocksEventReasons"));
  if (!reasons_) reasons_ = reinterpret_cast<Fn>(symbol<Reasons>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!init || !by_pci || !shutdown_ || init() != kNvmlSuccess) return;
  initialised_ = true;
  for (const auto& id : pci_bus_ids) {
    void* h = nullptr;
    if (by_pci(id.c_str(), &h) != kNvmlSuccess) return;
    devices_.push_back(h);
  }
  available_ = clock_ && reasons_ && !devices_.empty();
}

NvmlMonitor::~NvmlMonitor() {
  if (initialised_) reinterpret_cast<Shutdown>(shutdown_)();
  if (lib_) dlclose(lib_);
}

DeviceState NvmlMonitor::sample() const {
  DeviceState all;
  if (!available_) return all;
  const auto clock = reinterpret_cast<ClockInfo>(clock_);
  const auto reasons = reinterpret_cast<Reasons>(reasons_);
  for (void* h : devices_) {
    unsigned sm = 0, mem = 0;
    unsigned long long bits = 0;
    if (clock(h, kClockSm, &sm) != kNvmlSuccess || clock(h, kClockMem, &mem) != kNvmlSuccess ||
        reasons(h, &bits) != kNvmlSuccess)
      return {};
    all.merge({true, static_cast<int>(sm), static_cast<int>(mem), bits});
  }
  return all;
}

std::string NvmlMonitor::driver_release() const {
  char buf[96] = {};
  if (initialised_ && driver_ && reinterpret_cast<DriverVersion>(driver_)(buf, sizeof buf) == kNvmlSuccess) return buf;
  return "n/a";
}

}  // namespace moesim::kernels
