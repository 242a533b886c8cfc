// Which GPU backends this build has, and the factories of those it lacks (they explain why).
// kernels/CMakeLists.txt defines MOESIM_HAVE_CUDA, MOESIM_HAVE_NCCL and MOESIM_HAVE_MPI (0 or 1)
// for this file from what it found at configure time.
#include <memory>
#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/bench_types.h"
#include "kernels/gemm_bench.h"

namespace moesim::kernels {

bool cuda_backend_built() { return MOESIM_HAVE_CUDA != 0; }
bool mpi_backend_built() { return MOESIM_HAVE_MPI != 0; }

#if !MOESIM_HAVE_CUDA
int visible_cuda_devices(std::string& why_none) {
  why_none = "this moesim was built without the CUDA backend";
  return 0;
}

std::unique_ptr<GemmBench> make_cuda_gemm_bench(int) {
  throw KernelError("this moesim was built without the CUDA backend (no CUDA toolkit at configure time, or "
                    "MOESIM_CUDA=OFF)");
}
#endif

#if !MOESIM_HAVE_NCCL
std::unique_ptr<AllToAllBench> make_nccl_all_to_all_bench(int) {
  throw KernelError("this moesim was built without NCCL (no CUDA toolkit or no libnccl at configure time)");
}
#endif

#if !MOESIM_HAVE_MPI
std::unique_ptr<AllToAllBench> make_nccl_mpi_all_to_all_bench() {
  throw KernelError("this moesim was built without the MPI launcher (needs CUDA, NCCL and MPI at configure time: "
                    "install libopenmpi-dev and reconfigure with MOESIM_MPI=AUTO or ON)");
}
#endif

}  // namespace moesim::kernels
