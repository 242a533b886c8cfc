// What the CPU backends report about the machine: the processor model (/proc/cpuinfo on Linux),
// hardware threads, memory (/proc/meminfo), the Eigen version and the compiler; GPU fields "n/a".
#pragma once

#include "kernels/bench_types.h"

namespace moesim::kernels {

DeviceInfo cpu_device_info(int threads_used);

}  // namespace moesim::kernels
