// The GPU backends are plugins: kernels/CMakeLists.txt builds the cuBLAS, cuBLASLt, NCCL (and
// MPI) code into the shared library libmoesim_kernels_cuda.so, which moesim loads with dlopen
// the first time a CUDA factory is called (kernels/plugin_loader.cpp). moesim therefore starts
// without mapping the GPU libraries (hundreds of MB) and runs where they are absent. The fake
// backend (kernels/fake_benches.h) is built as a second plugin, libmoesim_kernels_fake.so, with
// the same entry points, so that a dry run goes through the same loading and entry path.
//
// These are the plugins' entry points (C linkage, looked up by name). Errors cross as
// KernelError exceptions; objects are deleted through their virtual destructors.
#pragma once

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

extern "C" {
moesim::kernels::GemmBench* moesim_cuda_gemm_bench(int device);
moesim::kernels::AllToAllBench* moesim_nccl_all_to_all_bench(int gpus);
moesim::kernels::AllToAllBench* moesim_nccl_mpi_all_to_all_bench();
// GPUs visible; 0 with a one-line reason copied into why[0..size).
int moesim_cuda_visible_devices(char* why, int size);
// Ends a multi-process MPI job this plugin started (kernels/mpi_job.h); nothing otherwise.
void moesim_abort_job(int exit_code);
}
