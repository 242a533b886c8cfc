// The GPU GEMM benchmark (kernels/gemm_bench.h): cuBLAS grouped batched GEMM for BF16/FP16/FP32,
// cuBLASLt for FP8 (kernels/cuda_lt_fp8.h, replayed as one CUDA graph), cublasGemmEx for dense
// GEMMs; CUDA-event timing behind a launch gate (kernels/launch_gate.h).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cuda_buffer.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_device_info.h"
#include "kernels/cuda_event.h"
#include "kernels/cuda_factories.h"
#include "kernels/cuda_fill.h"
#include "kernels/cuda_graph.h"
#include "kernels/cuda_lt_fp8.h"
#include "kernels/gemm_bench.h"
#include "kernels/gemm_layout.h"
#include "kernels/launch_gate.h"
#include "kernels/nvml_monitor.h"

namespace moesim::kernels {
namespace {

// cuBLAS documentation (cublasSetWorkspace): 32 MiB is the workspace it recommends on Hopper.
constexpr std::size_t kLtWorkspaceBytes = 32u << 20;
// Enough scale factors for the block-scaling probe (LtFp8Grouped::block_scaling_available).
constexpr std::size_t kProbeScaleFloats = 4096;

cudaDataType_t data_type(ElementType t) {
  switch (t) {
    case ElementType::kFp32: return CUDA_R_32F;
    case ElementType::kFp16: return CUDA_R_16F;
    case ElementType::kBf16: return CUDA_R_16BF;
    case ElementType::kFp8E4M3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

// FP32 runs on the TF32 tensor cores (the rate HardwareProfile::peak_flops gives FP32).
cublasComputeType_t compute_type(ElementType t) {
  return t == ElementType::kFp32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

void check_shape(const GemmShape& shape) {
  if (shape.n <= 0 || shape.k <= 0) throw KernelError("gemm: n and k must be positive");
  if (shape.m_per_group.empty()) throw KernelError("gemm: no groups");
  if (!shape.grouped && shape.m_per_group.size() != 1) throw KernelError("gemm: a dense GEMM has one group");
  for (auto m : shape.m_per_group)
    if (m < 0 || m > (std::int64_t{1} << 31) - 1) throw KernelError("gemm: rows per group out of range");
  if (shape.n > (std::int64_t{1} << 31) - 1 || shape.k > (std::int64_t{1} << 31) - 1)
    throw KernelError("gemm: n or k out of range");
  if (const std::string why = cuda_gemm_layout_problem(shape); !why.empty()) throw KernelError(why);
}

std::string pci_bus_id(int device) {
  char pci[32] = {};
  return cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess ? pci : "";
}

class CudaGemmBench final : public GemmBench {
 public:
  explicit CudaGemmBench(int device) : device_(device), monitor_({pci_bus_id(device)}) {
    use_device(device_);
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cublas_check(cublasCreate(&blas_), "cublasCreate");
    cublas_check(cublasSetStream(blas_, stream_), "cublasSetStream");
    cublas_check(cublasLtCreate(&lt_), "cublasLtCreate");
    int l2 = 0, major = 0;
    cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_), "cudaDeviceGetAttribute(L2)");
    cuda_check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_),
               "cudaDeviceGetAttribute(compute capability)");
    scrub_bytes_ = 2 * static_cast<std::size_t>(l2);
    workspace_.reserve(kLtWorkspaceBytes);
    ones(kProbeScaleFloats);
    fp8_scaling_ = LtFp8Grouped::block_scaling_available(lt_, workspace_.get(), kLtWorkspaceBytes, major,
                                                         static_cast<const float*>(scales_.get()))
                       ? Fp8Scaling::kBlock
                       : Fp8Scaling::kPerTensor;
  }
  CudaGemmBench(const CudaGemmBench&) = delete;
  CudaGemmBench& operator=(const CudaGemmBench&) = delete;
  ~CudaGemmBench() override {
    graph_.reset();
    fp8_.reset();
    if (lt_) cublasLtDestroy(lt_);
    if (blas_) cublasDestroy(blas_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string_view backend() const override { return "cuda"; }
  DeviceInfo device_info() const override { return cuda_device_info(device_); }
  bool supports(ElementType) const override { return true; }

  std::string kernel(ElementType type, bool grouped) const override {
    if (type == ElementType::kFp8E4M3)
      return std::string("cublasLtMatmul per expert, replayed as one CUDA graph; E4M3 in, BF16 out, ") +
             (fp8_scaling_ == Fp8Scaling::kBlock
                  ? "1x128 activation and 128x128 weight FP32 block scales (DeepGEMM's recipe)"
                  : "per-tensor FP32 scales, fast accumulation (no block scaling on this device)");
    const std::string t(element_type_name(type));
    const std::string math = type == ElementType::kFp32 ? ", TF32 tensor cores" : ", FP32 accumulation";
    return grouped ? "cublasGemmGroupedBatchedEx, one problem per expert, " + t + math : "cublasGemmEx, " + t + math;
  }

  RunResult run(const GemmShape& shape, const BenchSettings& settings) override {
    const auto issue = prepare(shape);
    void* scratch = settings.flush_cache ? scrub_.reserve(scrub_bytes_) : nullptr;
    for (int i = 0; i < settings.warmup; ++i) issue();
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    const int reps = std::max(settings.repetitions, 0);
    const auto n = static_cast<std::size_t>(reps);
    CudaEvents events(2 * n);
    gate_.reset(reps);
    const bool gated = gated_;
    RunResult out;
    out.state = monitor_.sample();
    for (int i = 0; i < reps; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (scratch) scrub_cache(scratch, scrub_bytes_, stream_);
      if (gated) gate_.hold(i, stream_);
      events.record(2 * at, stream_);
      issue();
      events.record(2 * at + 1, stream_);
      if (gated) gate_.open(i);
      if (i == reps / 2) out.state.merge(monitor_.sample());  // while the GPU works through the rest
    }
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    out.state.merge(monitor_.sample());
    out.exposed_launches = gated ? gate_.timeouts() : reps;
    if (out.exposed_launches > 0) gated_ = false;  // something synchronised behind the gate: stop gating
    for (std::size_t i = 0; i < n; ++i) out.time.push_back(events.elapsed_ns(2 * i, 2 * i + 1));
    return out;
  }

  double verify(const GemmShape& shape) override {
    const auto issue = prepare(shape);
    issue();
    const std::int64_t rows = total_rows(shape);
    const auto groups = static_cast<std::int64_t>(shape.m_per_group.size());
    std::vector<float> x = to_host(x_.get(), shape.type, static_cast<std::size_t>(rows * shape.k));
    std::vector<float> w = to_host(w_.get(), shape.type, static_cast<std::size_t>(groups * shape.k * shape.n));
    std::vector<float> y = to_host(y_.get(), gemm_output_type(shape.type), static_cast<std::size_t>(rows * shape.n));
    if (shape.type == ElementType::kFp8E4M3) {  // [N][K] per group -> [K][N]
      std::vector<float> t(w.size());
      for (std::int64_t g = 0; g < groups; ++g)
        for (std::int64_t r = 0; r < shape.n; ++r)
          for (std::int64_t c = 0; c < shape.k; ++c)
            t[static_cast<std::size_t>((g * shape.k + c) * shape.n + r)] =
                w[static_cast<std::size_t>((g * shape.n + r) * shape.k + c)];
      w.swap(t);
    }
    std::vector<float> ref(y.size());
    cpu_grouped_gemm(shape.m_per_group, shape.n, shape.k, x.data(), w.data(), ref.data());
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
      worst = std::max(worst, std::fabs(static_cast<double>(y[i]) - ref[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
    }
    return scale > 0 ? worst / scale : worst;
  }

 private:
  static std::int64_t total_rows(const GemmShape& s) {
    return std::accumulate(s.m_per_group.begin(), s.m_per_group.end(), std::int64_t{0});
  }

  // `count` FP32 ones at the start of scales_ (scale factors of 1: results stay comparable with
  // the unscaled CPU reference).
  void ones(std::size_t count) {
    auto* s = static_cast<float*>(scales_.reserve(count * sizeof(float)));
    fill_float_device(s, count, 1.0f, stream_);
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  }

  std::vector<float> to_host(const void* src, ElementType t, std::size_t n) {
    auto* tmp = static_cast<float*>(convert_.reserve(n * sizeof(float) + 1));
    to_float_device(src, t, tmp, n, stream_);
    std::vector<float> out(n);
    cuda_check(cudaMemcpyAsync(out.data(), tmp, n * sizeof(float), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return out;
  }

  // Allocates and fills the operands of `shape`; returns what enqueues one run of it.
  std::function<void()> prepare(const GemmShape& shape) {
    check_shape(shape);
    use_device(device_);
    // Nothing of the previous shape may still read the buffers about to be reallocated or refilled.
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    graph_.reset();
    fp8_.reset();
    const std::int64_t rows = total_rows(shape);
    const auto groups = static_cast<std::int64_t>(shape.m_per_group.size());
    const double e = element_bytes(shape.type), eo = element_bytes(gemm_output_type(shape.type));
    const auto x_elems = static_cast<std::size_t>(rows * shape.k);
    const auto w_elems = static_cast<std::size_t>(groups * shape.k * shape.n);
    void* x = x_.reserve(static_cast<std::size_t>(static_cast<double>(x_elems) * e) + 256);
    void* w = w_.reserve(static_cast<std::size_t>(static_cast<double>(w_elems) * e) + 256);
    void* y = y_.reserve(static_cast<std::size_t>(static_cast<double>(rows * shape.n) * eo) + 256);
    fill_device(x, x_elems, shape.type, 1, stream_);
    fill_device(w, w_elems, shape.type, 2, stream_);
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");

    if (shape.type == ElementType::kFp8E4M3) {
      ones(std::max(LtFp8Grouped::scale_floats(shape.m_per_group, shape.n, shape.k, fp8_scaling_), kProbeScaleFloats));
      fp8_ = std::make_unique<LtFp8Grouped>(lt_, workspace_.get(), kLtWorkspaceBytes, fp8_scaling_);
      fp8_->plan(shape.m_per_group, shape.n, shape.k, x, w, y, static_cast<const float*>(scales_.get()));
      graph_ = std::make_unique<CudaGraph>(stream_, [this] { fp8_->issue(stream_); });
      return [this] { graph_->launch(stream_); };
    }
    const cudaDataType_t t = data_type(shape.type);
    const cublasComputeType_t ct = compute_type(shape.type);
    const int n = static_cast<int>(shape.n), k = static_cast<int>(shape.k);
    if (!shape.grouped) {
      const int m = static_cast<int>(shape.m_per_group[0]);
      return [=, this] {
        const float alpha = 1, beta = 0;
        cublas_check(cublasGemmEx(blas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, w, t, n, x, t, k, &beta, y, t, n,
                                  ct, CUBLAS_GEMM_DEFAULT),
                     "cublasGemmEx");
      };
    }
    // One problem per non-empty group: C_g (N × m_g) = W_g (N × K, ld N) · X_g (K × m_g, ld K).
    plan_ = {};
    std::vector<const void*> all;
    const auto offsets = packed_group_offsets(shape);
    for (const auto& o : offsets) all.push_back(static_cast<const char*>(w) + o.w);
    for (const auto& o : offsets) all.push_back(static_cast<const char*>(x) + o.x);
    for (const auto& o : offsets) all.push_back(static_cast<char*>(y) + o.y);
    for (const auto& o : offsets) {
      plan_.m.push_back(n);
      plan_.n.push_back(static_cast<int>(o.rows));
    }
    const std::size_t count = offsets.size();
    plan_.k.assign(count, k);
    plan_.lda.assign(count, n);
    plan_.ldb.assign(count, k);
    plan_.ldc.assign(count, n);
    plan_.ops.assign(count, CUBLAS_OP_N);
    plan_.alpha.assign(count, 1.0f);
    plan_.beta.assign(count, 0.0f);
    plan_.size.assign(count, 1);
    // The pointer arrays go up on the GEMMs' own stream, and arrive before this returns: a
    // plain cudaMemcpy from pageable memory would run on the legacy stream, which the GEMMs'
    // non-blocking stream is not ordered with.
    auto* ptrs = static_cast<void**>(ptrs_.reserve(3 * count * sizeof(void*) + 8));
    cuda_check(cudaMemcpyAsync(ptrs, all.data(), all.size() * sizeof(void*), cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (pointer arrays)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    const int groups_run = static_cast<int>(count);
    return [=, this] {
      if (groups_run == 0) return;
      cublas_check(cublasGemmGroupedBatchedEx(blas_, plan_.ops.data(), plan_.ops.data(), plan_.m.data(), plan_.n.data(),
                                              plan_.k.data(), plan_.alpha.data(), ptrs, t, plan_.lda.data(),
                                              ptrs + count, t, plan_.ldb.data(), plan_.beta.data(), ptrs + 2 * count, t,
                                              plan_.ldc.data(), groups_run, plan_.size.data(), ct),
                   "cublasGemmGroupedBatchedEx");
    };
  }

  struct GroupedPlan {
    std::vector<int> m, n, k, lda, ldb, ldc, size;
    std::vector<cublasOperation_t> ops;
    std::vector<float> alpha, beta;
  };

  int device_;
  NvmlMonitor monitor_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  std::size_t scrub_bytes_ = 0;
  Fp8Scaling fp8_scaling_ = Fp8Scaling::kPerTensor;
  DeviceBuffer x_, w_, y_, ptrs_, scales_, workspace_, scrub_, convert_;
  GroupedPlan plan_;
  std::unique_ptr<LtFp8Grouped> fp8_;
  std::unique_ptr<CudaGraph> graph_;
  LaunchGate gate_;
  bool gated_ = true;
};

}  // namespace

std::unique_ptr<GemmBench> cuda_gemm_bench(int device) { return std::make_unique<CudaGemmBench>(device); }

}  // namespace moesim::kernels
