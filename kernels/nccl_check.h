// Error check for NCCL calls (kernels/ GPU sources only): a failing call throws KernelError with
// NCCL's message; and the check that the NCCL loaded at run time is one the build can use.
#pragma once

#include <nccl.h>

#include <string>

#include "kernels/bench_types.h"

namespace moesim::kernels {

inline void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw KernelError(std::string(what) + ": " + ncclGetErrorString(r));
}

// ncclAlltoAll first shipped in NCCL 2.28.3 (NCCL release notes); kernels/nccl_version.cmake
// checks the headers at configure time, this the library a process actually loaded.
inline constexpr int kNcclMinimumVersion = 22803;

inline void check_nccl_runtime() {
  int v = 0;
  nccl_check(ncclGetVersion(&v), "ncclGetVersion");
  if (v < kNcclMinimumVersion)
    throw KernelError("NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                      std::to_string(v % 100) + " loaded at run time is older than 2.28.3, which ncclAlltoAll needs");
}

}  // namespace moesim::kernels
