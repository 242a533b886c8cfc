// The plugin side of kernels/cuda_plugin.h: the C entry points, over the C++ factories of the
// CUDA sources (compiled into the plugin only).
#include <cstring>
#include <string>

#include "kernels/cuda_factories.h"
#include "kernels/cuda_plugin.h"
#if MOESIM_HAVE_MPI
#include "kernels/mpi_job.h"
#endif

extern "C" {

moesim::kernels::GemmBench* moesim_cuda_gemm_bench(int device) {
  return moesim::kernels::cuda_gemm_bench(device).release();
}

moesim::kernels::AllToAllBench* moesim_nccl_all_to_all_bench(int gpus) {
#if MOESIM_HAVE_NCCL
  return moesim::kernels::nccl_all_to_all_bench(gpus).release();
#else
  (void)gpus;
  throw moesim::kernels::KernelError(
      "this moesim was built without the NCCL all-to-all (no NCCL >= 2.28.3 at configure time; see the CMake "
      "message)");
#endif
}

moesim::kernels::AllToAllBench* moesim_nccl_mpi_all_to_all_bench() {
#if MOESIM_HAVE_MPI
  return moesim::kernels::nccl_mpi_all_to_all_bench().release();
#else
  throw moesim::kernels::KernelError(
      "this moesim was built without the MPI launcher (needs NCCL and MPI at configure time: install "
      "libopenmpi-dev and reconfigure with MOESIM_MPI=AUTO or ON)");
#endif
}

int moesim_cuda_visible_devices(char* why, int size) {
  std::string reason;
  const int n = moesim::kernels::cuda_visible_devices(reason);
  if (size > 0) {
    std::strncpy(why, reason.c_str(), static_cast<std::size_t>(size) - 1);
    why[size - 1] = '\0';
  }
  return n;
}

void moesim_abort_job(int exit_code) {
#if MOESIM_HAVE_MPI
  moesim::kernels::MpiJob::abort_job(exit_code);
#else
  (void)exit_code;
#endif
}

}  // extern "C"
