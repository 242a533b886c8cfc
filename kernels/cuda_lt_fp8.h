// FP8 grouped GEMM through cuBLASLt (CUDA 13 has no Lt grouped matmul, so one cublasLtMatmul per
// non-empty group on one stream): E4M3 activations [m_g][K] and weights [N][K] with per-tensor
// FP32 scales, FP32 accumulation, BF16 output [m_g][N]. In cuBLAS's column-major terms each
// group is D (N × m_g) = op(A)ᵀ·B with A the weight (K × N, lda = K, transposed) and B the
// activations (K × m_g, ldb = K): the "TN" form cuBLASLt requires for FP8. The algorithm of each
// distinct m_g is chosen once by cublasLtMatmulAlgoGetHeuristic (best of the first answer).
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <vector>

namespace moesim::kernels {

class LtFp8Grouped {
 public:
  LtFp8Grouped(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes, const float* a_scale,
               const float* b_scale);
  LtFp8Grouped(const LtFp8Grouped&) = delete;
  LtFp8Grouped& operator=(const LtFp8Grouped&) = delete;
  ~LtFp8Grouped();

  // Plans every non-empty group of packed x (FP8 [rows][K]), w (FP8 [groups][N][K]) and
  // y (BF16 [rows][N]). Throws KernelError when cuBLASLt has no algorithm for a shape.
  void plan(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const void* x,
            const void* w, void* y);
  // Enqueues the planned matmuls on `stream`.
  void issue(cudaStream_t stream) const;

 private:
  struct Shape {
    cublasLtMatrixLayout_t b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  struct Call {
    const Shape* shape;
    const void* a;
    const void* b;
    void* d;
  };
  void release();

  cublasLtHandle_t lt_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr;
  std::map<std::int64_t, Shape> shapes_;  // by m_g
  std::vector<Call> calls_;
};

}  // namespace moesim::kernels
