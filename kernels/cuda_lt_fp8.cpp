#include "kernels/cuda_lt_fp8.h"

#include <string>

#include "kernels/cuda_check.h"
#include "kernels/gemm_layout.h"

namespace moesim::kernels {
namespace {

// DeepGEMM's block size (DeepSeek-V3 technical report, FP8 training: 1x128 activation tiles and
// 128x128 weight blocks), which cuBLASLt's VEC128 / BLK128x128 scale modes implement.
constexpr std::int64_t kBlock = 128;
// Scale regions start 256 bytes apart, cuBLASLt's default pointer alignment (cublasLt.h,
// CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES).
constexpr std::size_t kRegionFloats = 64;
// cuBLAS 12.9 introduced the 128-element block scale modes (NVIDIA, CUDALibrarySamples #310).
constexpr std::size_t kBlockScalingVersion = 120900;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// Floats of one group's weight and activation scale regions (rounded up to whole regions; the
// activation rows padded to a block, more than cuBLASLt reads).
std::size_t weight_scales(std::int64_t n, std::int64_t k) {
  return round_up(static_cast<std::size_t>(ceil_div(k, kBlock) * ceil_div(n, kBlock)), kRegionFloats);
}
std::size_t activation_scales(std::int64_t m, std::int64_t k) {
  return round_up(static_cast<std::size_t>(ceil_div(k, kBlock) * ceil_div(m, kBlock) * kBlock), kRegionFloats);
}

void set(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, const void* v, std::size_t size,
         const char* what) {
  cublas_check(cublasLtMatmulDescSetAttribute(d, attr, v, size), what);
}

// A heuristic search's preference: the workspace and each operand's real alignment.
class Preference {
 public:
  Preference(std::size_t workspace_bytes, std::uint32_t a, std::uint32_t b, std::uint32_t d) {
    cublas_check(cublasLtMatmulPreferenceCreate(&p_), "cublasLtMatmulPreferenceCreate");
    attr(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof workspace_bytes);
    attr(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &a, sizeof a);
    attr(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &b, sizeof b);
    attr(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &d, sizeof d);  // C is D (beta = 0)
    attr(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &d, sizeof d);
  }
  Preference(const Preference&) = delete;
  Preference& operator=(const Preference&) = delete;
  ~Preference() { cublasLtMatmulPreferenceDestroy(p_); }
  cublasLtMatmulPreference_t get() const { return p_; }

 private:
  void attr(cublasLtMatmulPreferenceAttributes_t a, const void* v, std::size_t size) {
    cublas_check(cublasLtMatmulPreferenceSetAttribute(p_, a, v, size), "cublasLtMatmulPreferenceSetAttribute");
  }
  cublasLtMatmulPreference_t p_ = nullptr;
};

std::uint32_t alignment_of(const void* p) {
  return static_cast<std::uint32_t>(pointer_alignment(reinterpret_cast<std::uintptr_t>(p)));
}

}  // namespace

LtFp8Grouped::LtFp8Grouped(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes, Fp8Scaling scaling)
    : lt_(lt), workspace_(workspace), workspace_bytes_(workspace_bytes), scaling_(scaling) {}

LtFp8Grouped::~LtFp8Grouped() { release(); }

void LtFp8Grouped::release() {
  for (auto& c : calls_)
    if (c.desc) cublasLtMatmulDescDestroy(c.desc);
  calls_.clear();
  for (auto& [m, l] : layouts_) {
    if (l.b) cublasLtMatrixLayoutDestroy(l.b);
    if (l.d) cublasLtMatrixLayoutDestroy(l.d);
  }
  layouts_.clear();
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  a_ = nullptr;
}

std::size_t LtFp8Grouped::scale_floats(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k,
                                       Fp8Scaling scaling) {
  if (scaling == Fp8Scaling::kPerTensor) return 2;
  std::size_t total = 0;
  for (auto m : m_per_group)
    if (m > 0) total += weight_scales(n, k) + activation_scales(m, k);
  return total;
}

cublasLtMatmulDesc_t LtFp8Grouped::make_desc(const float* a_scale, const float* b_scale) const {
  cublasLtMatmulDesc_t d = nullptr;
  cublas_check(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  try {
    const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
    set(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t, "set TRANSA");
    set(d, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n, "set TRANSB");
    if (scaling_ == Fp8Scaling::kBlock) {
#if CUBLAS_VERSION >= 120900
      const cublasLtMatmulMatrixScale_t weight = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
      const cublasLtMatmulMatrixScale_t activation = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
      set(d, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &weight, sizeof weight, "set A_SCALE_MODE");
      set(d, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &activation, sizeof activation, "set B_SCALE_MODE");
#else
      throw KernelError("fp8 gemm: block scaling needs cuBLAS 12.9 headers");
#endif
    } else {
      const std::int8_t fast = 1;
      set(d, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast, "set FAST_ACCUM");
    }
    set(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale, "set A_SCALE_POINTER");
    set(d, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale, "set B_SCALE_POINTER");
  } catch (...) {
    cublasLtMatmulDescDestroy(d);
    throw;
  }
  return d;
}

bool LtFp8Grouped::block_scaling_available(cublasLtHandle_t lt, void* workspace, std::size_t workspace_bytes,
                                           int compute_capability_major, const float* scales) {
#if CUBLAS_VERSION >= 120900
  if (compute_capability_major != 9 || cublasLtGetVersion() < kBlockScalingVersion) return false;
  // A probe shape of DeepGEMM's blocks, on 256-byte aligned (dummy, never dereferenced) pointers.
  try {
    LtFp8Grouped probe(lt, workspace, workspace_bytes, Fp8Scaling::kBlock);
    const auto* base = static_cast<const unsigned char*>(workspace);
    probe.plan({128}, 256, 256, base, base, const_cast<unsigned char*>(base), scales);
    return true;
  } catch (const KernelError&) {
    return false;
  }
#else
  (void)lt, (void)workspace, (void)workspace_bytes, (void)compute_capability_major, (void)scales;
  return false;
#endif
}

void LtFp8Grouped::plan(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const void* x,
                        const void* w, void* y, const float* scales) {
  release();
  const auto un = static_cast<std::uint64_t>(n), uk = static_cast<std::uint64_t>(k);
  cublas_check(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8F_E4M3, uk, un, k), "cublasLtMatrixLayoutCreate(A)");
  std::map<std::tuple<std::int64_t, std::uint32_t, std::uint32_t, std::uint32_t>, cublasLtMatmulAlgo_t> algos;
  const auto* xb = static_cast<const unsigned char*>(x);
  const auto* wb = static_cast<const unsigned char*>(w);
  auto* yb = static_cast<unsigned char*>(y);
  const float* scale = scales;
  std::int64_t row = 0;
  for (std::size_t g = 0; g < m_per_group.size(); ++g) {
    const std::int64_t m = m_per_group[g];
    if (m <= 0) continue;
    Call c;
    c.a = wb + static_cast<std::int64_t>(g) * n * k;
    c.b = xb + row * k;
    c.d = yb + row * n * 2;
    row += m;
    if (scaling_ == Fp8Scaling::kBlock) {
      c.desc = make_desc(scale, scale + weight_scales(n, k));
      scale += weight_scales(n, k) + activation_scales(m, k);
    } else {
      c.desc = make_desc(scales, scales + 1);
    }
    calls_.push_back(c);  // owned from here (release() destroys its descriptor)
    Call& call = calls_.back();
    auto [it, added] = layouts_.try_emplace(m);
    if (added) {
      const auto um = static_cast<std::uint64_t>(m);
      cublas_check(cublasLtMatrixLayoutCreate(&it->second.b, CUDA_R_8F_E4M3, uk, um, k),
                   "cublasLtMatrixLayoutCreate(B)");
      cublas_check(cublasLtMatrixLayoutCreate(&it->second.d, CUDA_R_16BF, un, um, n), "cublasLtMatrixLayoutCreate(D)");
    }
    call.layouts = &it->second;
    const auto key = std::make_tuple(m, alignment_of(call.a), alignment_of(call.b), alignment_of(call.d));
    if (auto found = algos.find(key); found != algos.end()) {
      call.algo = found->second;
      continue;
    }
    const Preference pref(workspace_bytes_, std::get<1>(key), std::get<2>(key), std::get<3>(key));
    cublasLtMatmulHeuristicResult_t result{};
    int count = 0;
    cublas_check(cublasLtMatmulAlgoGetHeuristic(lt_, call.desc, a_, call.layouts->b, call.layouts->d, call.layouts->d,
                                                pref.get(), 1, &result, &count),
                 "cublasLtMatmulAlgoGetHeuristic");
    if (count == 0)
      throw KernelError("fp8 gemm: cuBLASLt has no " +
                        std::string(scaling_ == Fp8Scaling::kBlock ? "block-scaled" : "per-tensor-scaled") +
                        " algorithm for m=" + std::to_string(m) + " n=" + std::to_string(n) +
                        " k=" + std::to_string(k) + " (operands aligned to " + std::to_string(std::get<1>(key)) + "/" +
                        std::to_string(std::get<2>(key)) + "/" + std::to_string(std::get<3>(key)) + " bytes)");
    call.algo = result.algo;
    algos.emplace(key, result.algo);
  }
}

void LtFp8Grouped::issue(cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  for (const Call& c : calls_)
    cublas_check(cublasLtMatmul(lt_, c.desc, &alpha, c.a, a_, c.b, c.layouts->b, &beta, c.d, c.layouts->d, c.d,
                                c.layouts->d, &c.algo, workspace_, workspace_bytes_, stream),
                 "cublasLtMatmul (fp8)");
}

}  // namespace moesim::kernels
