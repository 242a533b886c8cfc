#include "kernels/local_gpu.h"

#include <string>

#include "kernels/bench_types.h"

namespace moesim::kernels {

int local_gpu(int local_rank, int local_size, int visible) {
  if (visible < 1)
    throw KernelError("all-to-all (mpi): no GPU visible to node-local rank " + std::to_string(local_rank));
  if (visible == 1) return 0;  // one GPU per task: the launcher already chose it
  if (local_size <= visible) return local_rank;
  throw KernelError("all-to-all (mpi): " + std::to_string(local_size) + " processes on a node where each sees " +
                    std::to_string(visible) +
                    " GPUs: let every process see all GPUs of its node, or bind one GPU per task "
                    "(srun --gpus-per-task=1)");
}

}  // namespace moesim::kernels
