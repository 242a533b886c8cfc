// Which GPU backends this build has. kernels/CMakeLists.txt defines MOESIM_HAVE_CUDA and
// MOESIM_HAVE_MPI (0 or 1) for this file from what it found at configure time; the factories
// live in kernels/plugin_loader.cpp, which explains, in a build without CUDA, why there is none.
#include "kernels/bench_types.h"

namespace moesim::kernels {

bool cuda_backend_built() { return MOESIM_HAVE_CUDA != 0; }
bool mpi_backend_built() { return MOESIM_HAVE_MPI != 0; }

}  // namespace moesim::kernels
