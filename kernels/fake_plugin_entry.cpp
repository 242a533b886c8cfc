// The fake backend as a plugin (kernels/cuda_plugin.h): the same C entry points as the CUDA
// plugin, over the fake benches of kernels/fake_benches.h, so that `--backend fake` is loaded
// and called exactly as `--backend cuda` is. MOESIM_FAKE_FAIL_RANK=r makes MPI rank r of the
// fake MPI all-to-all fail (for the test that a failing rank ends the job).
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cuda_plugin.h"
#include "kernels/fake_benches.h"
#if MOESIM_HAVE_MPI
#include "kernels/mpi_job.h"
#endif

namespace {

constexpr int kFakeGpus = 8;  // an HGX node

}  // namespace

extern "C" {

moesim::kernels::GemmBench* moesim_cuda_gemm_bench(int device) {
  if (device < 0 || device >= kFakeGpus)
    throw moesim::kernels::KernelError("fake device " + std::to_string(device) + " out of range (" +
                                       std::to_string(kFakeGpus) + " fake GPUs)");
  return moesim::kernels::make_fake_gemm_bench({}).release();
}

moesim::kernels::AllToAllBench* moesim_nccl_all_to_all_bench(int gpus) {
  if (gpus > kFakeGpus)
    throw moesim::kernels::KernelError("all-to-all: " + std::to_string(gpus) + " GPUs asked for, " +
                                       std::to_string(kFakeGpus) + " fake GPUs");
  return moesim::kernels::make_fake_all_to_all_bench({}, gpus).release();
}

moesim::kernels::AllToAllBench* moesim_nccl_mpi_all_to_all_bench() {
#if MOESIM_HAVE_MPI
  const char* fail = std::getenv("MOESIM_FAKE_FAIL_RANK");
  return moesim::kernels::make_fake_mpi_all_to_all_bench(fail && *fail ? std::atoi(fail) : -1).release();
#else
  throw moesim::kernels::KernelError("this moesim was built without MPI: the fake backend has no MPI launcher");
#endif
}

int moesim_cuda_visible_devices(char* why, int size) {
  if (size > 0) why[0] = '\0';
  return kFakeGpus;
}

void moesim_abort_job(int exit_code) {
#if MOESIM_HAVE_MPI
  moesim::kernels::MpiJob::abort_job(exit_code);
#else
  (void)exit_code;
#endif
}

}  // extern "C"
