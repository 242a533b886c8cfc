#include "kernels/cuda_lt_fp8.h"

#include <string>

#include "kernels/cuda_check.h"

namespace moesim::kernels {

LtFp8Grouped::LtFp8Grouped(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes, const float* a_scale,
                           const float* b_scale)
    : lt_(lt), workspace_(workspace), workspace_bytes_(workspace_bytes) {
  cublas_check(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  cublas_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "set TRANSA");
  cublas_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n), "set TRANSB");
  cublas_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale),
               "set A_SCALE_POINTER");
  cublas_check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale),
               "set B_SCALE_POINTER");
}

LtFp8Grouped::~LtFp8Grouped() {
  release();
  if (desc_) cublasLtMatmulDescDestroy(desc_);
}

void LtFp8Grouped::release() {
  for (auto& [m, s] : shapes_) {
    if (s.b) cublasLtMatrixLayoutDestroy(s.b);
    if (s.d) cublasLtMatrixLayoutDestroy(s.d);
  }
  shapes_.clear();
  calls_.clear();
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  a_ = nullptr;
}

void LtFp8Grouped::plan(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const void* x,
                        const void* w, void* y) {
  release();
  if (k % 16 != 0 || n % 16 != 0)
    throw KernelError("fp8 gemm: cuBLASLt FP8 needs n and k multiples of 16, got n=" + std::to_string(n) +
                      " k=" + std::to_string(k));
  const auto un = static_cast<std::uint64_t>(n), uk = static_cast<std::uint64_t>(k);
  cublas_check(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, uk, un, k), "cublasLtMatrixLayoutCreate(A)");
  cublasLtMatmulPreference_t pref = nullptr;
  cublas_check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  cublas_check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                                    sizeof workspace_bytes_),
               "set MAX_WORKSPACE_BYTES");
  try {
    const auto* xb = static_cast<const unsigned char*>(x);
    const auto* wb = static_cast<const unsigned char*>(w);
    auto* yb = static_cast<unsigned char*>(y);
    std::int64_t row = 0;
    for (std::size_t g = 0; g < m_per_group.size(); ++g) {
      const std::int64_t m = m_per_group[g];
      if (m <= 0) continue;
      auto [it, added] = shapes_.try_emplace(m);
      Shape& s = it->second;
      if (added) {
        const auto um = static_cast<std::uint64_t>(m);
        cublas_check(cublasLtMatrixLayoutCreate(&s.b, CUDA_R_8F_E4M3, uk, um, k), "cublasLtMatrixLayoutCreate(B)");
        cublas_check(cublasLtMatrixLayoutCreate(&s.d, CUDA_R_16BF, un, um, n), "cublasLtMatrixLayoutCreate(D)");
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        cublas_check(cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, s.b, s.d, s.d, pref, 1, &result, &found),
                     "cublasLtMatmulAlgoGetHeuristic");
        if (found == 0)
          throw KernelError("fp8 gemm: cuBLASLt has no algorithm for m=" + std::to_string(m) +
                            " n=" + std::to_string(n) + " k=" + std::to_string(k));
        s.algo = result.algo;
      }
      calls_.push_back({&s, wb + static_cast<std::int64_t>(g) * n * k, xb + row * k, yb + row * n * 2});
      row += m;
    }
  } catch (...) {
    cublasLtMatmulPreferenceDestroy(pref);
    throw;
  }
  cublasLtMatmulPreferenceDestroy(pref);
}

void LtFp8Grouped::issue(cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  for (const Call& c : calls_)
    cublas_check(cublasLtMatmul(lt_, desc_, &alpha, c.a, a_, c.b, c.shape->b, &beta, c.d, c.shape->d, c.d,
                                c.shape->d, &c.shape->algo, workspace_, workspace_bytes_, stream),
                 "cublasLtMatmul (fp8)");
}

}  // namespace moesim::kernels
