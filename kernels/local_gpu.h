// Which GPU a process of an MPI-launched all-to-all drives. Launchers bind GPUs two ways:
//   - every process sees all of its node's GPUs (mpirun, srun --gpus-per-node): the node-local
//     rank picks one, so `local_size` processes need at least `local_size` visible GPUs;
//   - each process sees exactly one GPU (srun --gpus-per-task=1, or a CUDA_VISIBLE_DEVICES per
//     task): that GPU, device 0, whatever the local rank.
// Anything else (several GPUs visible but fewer than the processes sharing them) is ambiguous
// and refused.
#pragma once

namespace moesim::kernels {

// The CUDA device index for node-local rank `local_rank` of `local_size` processes that each
// see `visible` GPUs. Throws KernelError naming the counts when no binding fits.
int local_gpu(int local_rank, int local_size, int visible);

}  // namespace moesim::kernels
