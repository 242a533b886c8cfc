// Error checks for the CUDA, cuBLAS, cuBLASLt and NCCL calls of the GPU backends: a failing call
// throws KernelError naming the call and the library's own message. Included only by the CUDA
// sources of kernels/ (never by a header that the rest of moesim sees).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "kernels/bench_types.h"

namespace moesim::kernels {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw KernelError(std::string(what) + ": " + cudaGetErrorString(e));
}

inline void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw KernelError(std::string(what) + ": " + cublasGetStatusString(s));
}

// Throws KernelError unless at least one GPU is visible; returns the count.
int visible_gpus();

// Selects `device` (throws KernelError when it is out of range).
void use_device(int device);

}  // namespace moesim::kernels
