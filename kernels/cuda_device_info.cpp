#include "kernels/cuda_device_info.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#if MOESIM_HAVE_NCCL
#include <nccl.h>
#endif

#include <string>

#include "kernels/cuda_check.h"
#include "kernels/cuda_factories.h"
#include "kernels/nvml_monitor.h"

namespace moesim::kernels {
namespace {

std::string version_string(int v) {  // 12040 -> "12.4"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

void add_nvml_fields(DeviceInfo& info, int device) {
  char pci[32] = {};
  const NvmlMonitor nvml({cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess ? pci : ""});
  const DeviceState now = nvml.sample();
  info.add("driver_release", nvml.driver_release());
  info.add("sm_clock_now_mhz", now.known ? std::to_string(now.sm_clock_mhz) : "n/a");
  info.add("memory_clock_now_mhz", now.known ? std::to_string(now.memory_clock_mhz) : "n/a");
}

}  // namespace

int visible_gpus() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess)
    throw KernelError(std::string("no CUDA device visible (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")");
  if (n == 0) throw KernelError("no CUDA device visible (cudaGetDeviceCount found 0 devices)");
  return n;
}

int cuda_visible_devices(std::string& why_none) {
  try {
    return visible_gpus();
  } catch (const KernelError& e) {
    why_none = e.what();
    return 0;
  }
}

void use_device(int device) {
  const int n = visible_gpus();
  if (device < 0 || device >= n)
    throw KernelError("CUDA device " + std::to_string(device) + " out of range (" + std::to_string(n) + " visible)");
  cuda_check(cudaSetDevice(device), "cudaSetDevice");
}

DeviceInfo cuda_device_info(int device) {
  DeviceInfo info;
  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  info.add("device", prop.name);
  info.add("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  info.add("sm_count", std::to_string(prop.multiProcessorCount));
  info.add("sm_clock_mhz", std::to_string(attribute(cudaDevAttrClockRate, device) / 1000));
  info.add("memory_clock_mhz", std::to_string(attribute(cudaDevAttrMemoryClockRate, device) / 1000));
  info.add("memory_bus_bits", std::to_string(attribute(cudaDevAttrGlobalMemoryBusWidth, device)));
  info.add("memory_bytes", std::to_string(prop.totalGlobalMem));
  info.add("l2_bytes", std::to_string(attribute(cudaDevAttrL2CacheSize, device)));
  int driver = 0, runtime = 0;
  info.add("driver", cudaDriverGetVersion(&driver) == cudaSuccess ? version_string(driver) : "n/a");
  add_nvml_fields(info, device);
  info.add("cuda_runtime", cudaRuntimeGetVersion(&runtime) == cudaSuccess ? version_string(runtime) : "n/a");
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  info.add("cublas", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
  info.add("cublaslt", std::to_string(cublasLtGetVersion()));
#if MOESIM_HAVE_NCCL
  int nccl = 0;
  info.add("nccl", ncclGetVersion(&nccl) == ncclSuccess
                       ? std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
                             std::to_string(nccl % 100)
                       : "n/a");
#else
  info.add("nccl", "n/a");
#endif
  return info;
}

}  // namespace moesim::kernels
