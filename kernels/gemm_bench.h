// GemmBench: times dense and grouped GEMMs of given shapes (docs/design.md §4, "compute cost").
//
// A grouped GEMM has one [K × N] weight per group; group g multiplies m_per_group[g] rows of
// activations ([m_g × K]) into a [m_g × N] output. Groups with no rows are skipped (no weight
// read, no launch). A dense GEMM is one group of m rows. Backends:
//
//   cpu   Eigen, FP32, one GEMM per group on the calling thread (Eigen without OpenMP is
//         single-threaded), timed with std::chrono::steady_clock or the thread's CPU time
//         (BenchSettings::clock).
//   cuda  BF16/FP16/FP32 grouped GEMMs through cuBLAS cublasGemmGroupedBatchedEx (one problem
//         per group), FP8 (E4M3 inputs, BF16 output) through cuBLASLt, one matmul per group,
//         the whole loop captured in one CUDA graph, with DeepGEMM's 1x128 / 128x128 FP32 block
//         scales where cuBLASLt has them (sm_90, cuBLAS >= 12.9) and per-tensor scales with fast
//         accumulation otherwise; dense GEMMs through cublasGemmEx (TF32 for FP32) or the FP8
//         path; timed with CUDA events, one pair per repetition, the start event held behind a
//         launch gate (kernels/launch_gate.h) so that host launch time is not timed. Shapes
//         whose packed layout breaks the libraries' alignment rules are refused
//         (kernels/gemm_layout.h).
//   fake  analytic timings, no device (kernels/fake_benches.h): dry runs of the pipeline.
//
// Layouts (row-major, groups packed one after another): activations [m_g][K]; weights [K][N]
// per group, except FP8 weights [N][K] (cuBLASLt's FP8 kernels want the weight K-major);
// outputs [m_g][N] in the input type (BF16 for FP8, FP32 for FP32). Inputs are filled with small
// pseudo-random values once per shape; `verify` checks a shape's result.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/bench_types.h"

namespace moesim::kernels {

struct GemmShape {
  std::vector<std::int64_t> m_per_group;  // one entry for a dense GEMM
  std::int64_t n = 0;
  std::int64_t k = 0;
  ElementType type = ElementType::kBf16;
  bool grouped = true;  // false: dense GEMM of m_per_group[0] rows
};

class GemmBench {
 public:
  virtual ~GemmBench() = default;
  virtual std::string_view backend() const = 0;  // "cpu", "cuda"
  virtual DeviceInfo device_info() const = 0;
  virtual bool supports(ElementType t) const = 0;
  // The kernel that runs GEMMs of `type` (grouped or dense), in words: what a capture's rows
  // measure (its `gemm_kernel` metadata), so that a fit knows what it fits.
  virtual std::string kernel(ElementType type, bool grouped) const = 0;
  // Throws KernelError for an unsupported type, a bad shape or a failing library call.
  virtual RunResult run(const GemmShape& shape, const BenchSettings& settings) = 0;
  // Runs `shape` once and compares the output with an independent reference on the same inputs
  // (cpu: a plain triple loop; cuda: the CPU kernel on the inputs converted to FP32). Returns
  // max |out - ref| / max |ref|. Meant for small shapes.
  virtual double verify(const GemmShape& shape) = 0;
};

std::unique_ptr<GemmBench> make_cpu_gemm_bench();
// GPU `device` of this process. Throws KernelError when the build has no CUDA backend, when no
// GPU is visible, or when `device` is out of range.
std::unique_ptr<GemmBench> make_cuda_gemm_bench(int device);
// The fake backend's GEMMs, loaded from its plugin exactly as the CUDA ones are.
std::unique_ptr<GemmBench> make_fake_plugin_gemm_bench(int device);

// The CPU reference kernel itself (what the cpu bench times): y[g] = x[g] · w[g] for row-major
// x[g] (m_g × k), w[g] (k × n), y[g] (m_g × n), all groups packed one after another.
void cpu_grouped_gemm(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const float* x,
                      const float* w, float* y);

}  // namespace moesim::kernels
