// Which GPU backends this build has, and, in a build without CUDA, the factories that explain
// why they cannot run. kernels/CMakeLists.txt defines MOESIM_HAVE_CUDA and MOESIM_HAVE_MPI (0 or
// 1) for this file from what it found at configure time; with CUDA the factories live in
// kernels/cuda_plugin_loader.cpp.
#include <memory>
#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/bench_types.h"
#include "kernels/gemm_bench.h"

namespace moesim::kernels {

bool cuda_backend_built() { return MOESIM_HAVE_CUDA != 0; }
bool mpi_backend_built() { return MOESIM_HAVE_MPI != 0; }

#if !MOESIM_HAVE_CUDA
namespace {
constexpr const char* kNoCuda =
    "this moesim was built without the CUDA backend (no CUDA toolkit at configure time, or MOESIM_CUDA=OFF)";
}  // namespace

int visible_cuda_devices(std::string& why_none) {
  why_none = kNoCuda;
  return 0;
}
std::unique_ptr<GemmBench> make_cuda_gemm_bench(int) { throw KernelError(kNoCuda); }
std::unique_ptr<AllToAllBench> make_nccl_all_to_all_bench(int) { throw KernelError(kNoCuda); }
std::unique_ptr<AllToAllBench> make_nccl_mpi_all_to_all_bench() { throw KernelError(kNoCuda); }
#endif

}  // namespace moesim::kernels
