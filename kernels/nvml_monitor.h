// Reads GPU clocks and clocks-event ("throttle") reasons through NVML. NVML is part of the driver,
// not of the CUDA toolkit, and has no header here: the library is loaded at run time (dlopen)
// and the few C entry points used are declared by hand from NVML's API reference, so that a
// build needs nothing of it and a run without it reports unknown states and "n/a".
#pragma once

#include <string>
#include <vector>

#include "kernels/device_state.h"

namespace moesim::kernels {

class NvmlMonitor {
 public:
  // Watches the GPUs with these PCI bus ids ("0000:04:00.0", cudaDeviceGetPCIBusId). `library`:
  // the NVML shared library to load (the driver's by default).
  explicit NvmlMonitor(const std::vector<std::string>& pci_bus_ids, const char* library = "libnvidia-ml.so.1");
  NvmlMonitor(const NvmlMonitor&) = delete;
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;
  ~NvmlMonitor();

  // Whether NVML loaded, initialised and found every GPU.
  bool available() const { return available_; }
  // Current SM and memory clocks and clocks-event reasons, merged over the GPUs; unknown when
  // NVML is not available or a query fails.
  DeviceState sample() const;
  // The driver's release ("570.124.06"), or "n/a".
  std::string driver_release() const;

 private:
  using Fn = void*;
  void* lib_ = nullptr;
  bool initialised_ = false;
  bool available_ = false;
  std::vector<void*> devices_;
  Fn clock_ = nullptr, reasons_ = nullptr, driver_ = nullptr, shutdown_ = nullptr;
};

}  // namespace moesim::kernels
