// FP8 grouped GEMM through cuBLASLt (kernels/ GPU sources only). CUDA 13's cuBLASLt has no
// grouped matmul, so each non-empty group is one cublasLtMatmul; the bench captures the whole
// loop in one CUDA graph, so that the groups run back to back as one grouped kernel's tiles
// would, with no host launch between them. E4M3 activations [m_g][K] and weights [N][K], FP32
// accumulation, BF16 output [m_g][N]. In cuBLAS's column-major terms each group is
// D (N × m_g) = op(A)ᵀ·B with A the weight (K × N, lda = K, transposed) and B the activations
// (K × m_g, ldb = K): the "TN" form cuBLASLt requires for FP8.
//
// Scaling, chosen once per device (block_scaling_available):
//   kBlock      DeepGEMM's (and DeepSeek-V3's) recipe: one FP32 scale per 128×128 block of the
//               weight (CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F on A) and per 1×128 block
//               of each activation row (VEC128_32F on B). cuBLASLt has these from cuBLAS 12.9,
//               on sm_90 only (NVIDIA, CUDALibrarySamples issues 270 and 310).
//   kPerTensor  one FP32 scale per tensor, with fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM,
//               as TransformerEngine's forward FP8 GEMMs): everywhere else.
// The scale factors are all 1.0, so that results match the unscaled CPU reference; each group
// has its own scale regions (and so its own matmul descriptor), as a real layer's would.
//
// The algorithm of each distinct (m_g, pointer alignments) is chosen once by
// cublasLtMatmulAlgoGetHeuristic, told each operand's true alignment (kernels/gemm_layout.h):
// its default assumes 256 bytes, which packed experts do not always have.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace moesim::kernels {

enum class Fp8Scaling { kPerTensor, kBlock };

class LtFp8Grouped {
 public:
  LtFp8Grouped(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes, Fp8Scaling scaling);
  LtFp8Grouped(const LtFp8Grouped&) = delete;
  LtFp8Grouped& operator=(const LtFp8Grouped&) = delete;
  ~LtFp8Grouped();

  // FP32 scale factors plan() reads from its `scales` buffer for this shape.
  static std::size_t scale_floats(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k,
                                  Fp8Scaling scaling);
  // Whether this device's cuBLASLt has block-scaled FP8 (kBlock): sm_90, cuBLASLt >= 12.9, and an
  // algorithm for a probe shape. `scales` holds at least scale_floats of that probe (4096 floats do).
  static bool block_scaling_available(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes,
                                      int compute_capability_major, const float* scales);

  // Plans every non-empty group of packed x (FP8 [rows][K]), w (FP8 [groups][N][K]) and
  // y (BF16 [rows][N]) with scale factors from `scales`. Throws KernelError when cuBLASLt has no
  // algorithm for a shape.
  void plan(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const void* x, const void* w,
            void* y, const float* scales);
  // Enqueues the planned matmuls on `stream` (or records them into a graph being captured).
  void issue(cudaStream_t stream) const;

 private:
  struct Layouts {
    cublasLtMatrixLayout_t b = nullptr, d = nullptr;
  };
  struct Call {
    cublasLtMatmulDesc_t desc = nullptr;
    const Layouts* layouts = nullptr;
    cublasLtMatmulAlgo_t algo{};
    const void* a = nullptr;
    const void* b = nullptr;
    void* d = nullptr;
  };
  void release();
  cublasLtMatmulDesc_t make_desc(const float* a_scale, const float* b_scale) const;

  cublasLtHandle_t lt_;
  void* workspace_;
  std::size_t workspace_bytes_;
  Fp8Scaling scaling_;
  cublasLtMatrixLayout_t a_ = nullptr;
  std::map<std::int64_t, Layouts> layouts_;  // by m_g
  std::vector<Call> calls_;
};

}  // namespace moesim::kernels
