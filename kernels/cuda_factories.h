// Inside the CUDA backend plugin only: the C++ factories of its benchmarks, which the C entry
// points of kernels/cuda_plugin.h wrap. Same contracts as the make_* functions of
// kernels/gemm_bench.h and kernels/all_to_all_bench.h.
#pragma once

#include <memory>
#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

namespace moesim::kernels {

std::unique_ptr<GemmBench> cuda_gemm_bench(int device);          // kernels/cuda_gemm_bench.cpp
std::unique_ptr<AllToAllBench> nccl_all_to_all_bench(int gpus);  // kernels/nccl_all_to_all_bench.cpp
std::unique_ptr<AllToAllBench> nccl_mpi_all_to_all_bench();      // kernels/nccl_mpi_all_to_all_bench.cpp
int cuda_visible_devices(std::string& why_none);                 // kernels/cuda_device_info.cpp

}  // namespace moesim::kernels
