#include "kernels/cuda_device_info.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#if MOESIM_HAVE_NCCL
#include <nccl.h>
#endif

#include <string>

#include "kernels/cuda_check.h"
#include "kernels/cuda_factories.h"

namespace moesim::kernels {
namespace {

std::string version_string(int v) {  // 12040 -> "12.4"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  return cudaDeviceGetAttribute(&v, a, device) == cudaSuccess ? v : 0;
}

// NVML is part of the driver, not the toolkit: loaded at run time so that moesim runs (and
// reports "n/a") where it is absent. The prototypes are NVML's C API; enum values are NVML's
// nvmlClockType_t (SM = 1, memory = 2).
struct Nvml {
  using Init = int (*)();
  using Shutdown = int (*)();
  using DriverVersion = int (*)(char*, unsigned);
  using HandleByPci = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);

  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  template <typename F>
  F sym(const char* name) const {
    return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
  }
  ~Nvml() {
    if (lib) dlclose(lib);
  }
};

void add_nvml_fields(DeviceInfo& info, int device) {
  Nvml nvml;
  const auto init = nvml.sym<Nvml::Init>("nvmlInit_v2");
  const auto shutdown = nvml.sym<Nvml::Shutdown>("nvmlShutdown");
  const auto driver = nvml.sym<Nvml::DriverVersion>("nvmlSystemGetDriverVersion");
  const auto handle_by_pci = nvml.sym<Nvml::HandleByPci>("nvmlDeviceGetHandleByPciBusId_v2");
  const auto clock = nvml.sym<Nvml::Clock>("nvmlDeviceGetClockInfo");
  const auto max_clock = nvml.sym<Nvml::Clock>("nvmlDeviceGetMaxClockInfo");
  std::string release = "n/a", sm_now = "n/a", mem_now = "n/a";
  if (init && shutdown && driver && handle_by_pci && clock && max_clock && init() == 0) {
    char buf[96] = {};
    if (driver(buf, sizeof buf) == 0) release = buf;
    char pci[32] = {};
    void* h = nullptr;
    if (cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess && handle_by_pci(pci, &h) == 0) {
      unsigned v = 0;
      if (clock(h, 1, &v) == 0) sm_now = std::to_string(v);
      if (clock(h, 2, &v) == 0) mem_now = std::to_string(v);
    }
    shutdown();
  }
  info.add("driver_release", release);
  info.add("sm_clock_now_mhz", sm_now);
  info.add("memory_clock_now_mhz", mem_now);
}

}  // namespace

int visible_gpus() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) throw KernelError(std::string("no CUDA device visible (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")");
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
