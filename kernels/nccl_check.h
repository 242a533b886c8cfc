// Error check for NCCL calls (kernels/ GPU sources only): a failing call throws KernelError with
// NCCL's message.
#pragma once

#include <nccl.h>

#include <string>

#include "kernels/bench_types.h"

namespace moesim::kernels {

inline void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw KernelError(std::string(what) + ": " + ncclGetErrorString(r));
}

}  // namespace moesim::kernels
