#include "calibration/capture_names.h"

#include "kernels/bench_types.h"

namespace moesim::calibration {

std::vector<RegistryEntry> capture_backends() {
  return {{"cpu", "reference kernels on this CPU: Eigen FP32 GEMMs, threads exchanging through shared memory"},
          {"cuda", kernels::cuda_backend_built()
                       ? "cuBLAS/cuBLASLt GEMMs (bf16, fp16, fp8, fp32) and NCCL all-to-all on the local GPUs"
                       : "cuBLAS/cuBLASLt GEMMs and NCCL all-to-all (not in this build: no CUDA toolkit found)"},
          {"fake",
           "no device: analytic timings of a made-up H200 through the GPU plugin path, for dry runs "
           "(measures nothing)"}};
}

std::vector<RegistryEntry> capture_suites() {
  return {{"gemm", "dense GEMMs over a sweep of rows (m) at each (n, k)"},
          {"grouped-gemm", "grouped GEMMs: experts x rows per expert, uniform and zipf-skewed, at each (n, k)"},
          {"alltoall", "all-to-all-v over a sweep of bytes per peer, uniform and zipf-skewed receivers"}};
}

std::vector<RegistryEntry> capture_dtypes() {
  return {{"bf16", "bfloat16 operands"},
          {"fp16", "float16 operands"},
          {"fp8", "fp8 (e4m3) operands"},
          {"fp32", "float32 operands"}};
}

std::vector<RegistryEntry> split_distributions() {
  return {{"uniform", "equal shares of the rows (grouped-gemm) or bytes (alltoall)"},
          {"zipf", "group g gets a share proportional to 1 / (g + 1)^skew: a hot expert or receiving rank"}};
}

std::vector<RegistryEntry> capture_clocks() {
  return {{"wall", "steady_clock wall time"}, {"cpu", "thread CPU time: ignores other load (cpu backend)"}};
}

std::vector<RegistryEntry> capture_launchers() {
  return {{"local", "one process drives every rank"}, {"mpi", "one process per GPU under mpirun"}};
}

std::vector<RegistryEntry> throttle_policies() {
  return {{"flag", "a case run while the GPU throttled is kept, marked in column throttled"},
          {"refuse", "a case run while the GPU throttled is left out, listed with the skipped cases"}};
}

}  // namespace moesim::calibration
