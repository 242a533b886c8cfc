// What the GPU backends report about a device: name, compute capability, SM count, clocks
// (maximum from the CUDA runtime; current and maximum from NVML when the driver's NVML library
// can be loaded), memory and L2 size, and the driver, CUDA runtime, cuBLAS, cuBLASLt and NCCL
// versions.
#pragma once

#include "kernels/bench_types.h"

namespace moesim::kernels {

DeviceInfo cuda_device_info(int device);

}  // namespace moesim::kernels
