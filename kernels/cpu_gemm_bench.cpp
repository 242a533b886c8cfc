// The CPU reference grouped GEMM: Eigen, FP32, one product per group (kernels/gemm_bench.h).
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cpu_device_info.h"
#include "kernels/gemm_bench.h"

namespace moesim::kernels {
namespace {

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Deterministic values in [-1, 1): a 32-bit LCG (Numerical Recipes constants), so runs are
// reproducible and the data is not all zeros (which some CPUs multiply faster).
void fill(std::vector<float>& v, std::uint32_t seed) {
  std::uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
}

void check_shape(const GemmShape& shape) {
  if (shape.n <= 0 || shape.k <= 0) throw KernelError("gemm: n and k must be positive");
  if (shape.m_per_group.empty()) throw KernelError("gemm: no groups");
  if (!shape.grouped && shape.m_per_group.size() != 1) throw KernelError("gemm: a dense GEMM has one group");
  for (auto m : shape.m_per_group)
    if (m < 0) throw KernelError("gemm: negative rows in a group");
}

class CpuGemmBench final : public GemmBench {
 public:
  std::string_view backend() const override { return "cpu"; }
  // Eigen's register blocking for FP32 on this build's SIMD width: a row-major product
  // Y = X·W runs as Yᵀ = Wᵀ·Xᵀ, so the micro-kernel's nr columns are rows of X (a remainder row
  // runs alone) and its mr rows, in steps of one packet, are columns of W.
  DeviceInfo device_info() const override {
    DeviceInfo info = cpu_device_info(1);
    using Traits = Eigen::internal::gebp_traits<float, float>;
    info.add("gemm_block_m", "1," + std::to_string(Traits::nr));
    info.add("gemm_block_n", std::to_string(Traits::LhsProgress) + "," + std::to_string(Traits::mr));
    return info;
  }
  bool supports(ElementType t) const override { return t == ElementType::kFp32; }
  std::string kernel(ElementType, bool) const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + " FP32 matrix product, one per group, one thread";
  }

  RunResult run(const GemmShape& shape, const BenchSettings& settings) override {
    check_shape(shape);
    if (!supports(shape.type))
      throw KernelError("the cpu backend runs fp32 GEMMs only, not " + std::string(element_type_name(shape.type)));
    const std::int64_t rows = std::accumulate(shape.m_per_group.begin(), shape.m_per_group.end(), std::int64_t{0});
    const auto groups = static_cast<std::int64_t>(shape.m_per_group.size());
    x_.resize(static_cast<std::size_t>(rows * shape.k));
    w_.resize(static_cast<std::size_t>(groups * shape.k * shape.n));
    y_.resize(static_cast<std::size_t>(rows * shape.n));
    fill(x_, 1);
    fill(w_, 2);
    RunResult out;
    out.time.reserve(static_cast<std::size_t>(settings.repetitions));
    for (int i = 0; i < settings.warmup + settings.repetitions; ++i) {
      const double t0 = cpu_clock_ns(settings.clock);
      cpu_grouped_gemm(shape.m_per_group, shape.n, shape.k, x_.data(), w_.data(), y_.data());
      const double t1 = cpu_clock_ns(settings.clock);
      if (i >= settings.warmup) out.time.push_back(t1 - t0);
    }
    return out;
  }

  double verify(const GemmShape& shape) override {
    run(shape, BenchSettings{0, 1, false});
    double worst = 0, scale = 0;
    std::int64_t row = 0;
    for (std::size_t g = 0; g < shape.m_per_group.size(); ++g) {
      const float* w = w_.data() + static_cast<std::int64_t>(g) * shape.k * shape.n;
      for (std::int64_t i = row; i < row + shape.m_per_group[g]; ++i)
        for (std::int64_t j = 0; j < shape.n; ++j) {
          double ref = 0;
          for (std::int64_t c = 0; c < shape.k; ++c)
            ref += static_cast<double>(x_[static_cast<std::size_t>(i * shape.k + c)]) *
                   w[static_cast<std::size_t>(c * shape.n + j)];
          worst = std::max(worst, std::fabs(ref - y_[static_cast<std::size_t>(i * shape.n + j)]));
          scale = std::max(scale, std::fabs(ref));
        }
      row += shape.m_per_group[g];
    }
    return scale > 0 ? worst / scale : worst;
  }

 private:
  std::vector<float> x_, w_, y_;  // reused across shapes: growing only when a shape needs more
};

}  // namespace

void cpu_grouped_gemm(const std::vector<std::int64_t>& m_per_group, std::int64_t n, std::int64_t k, const float* x,
                      const float* w, float* y) {
  for (std::size_t g = 0; g < m_per_group.size(); ++g) {
    const std::int64_t m = m_per_group[g];
    const float* wg = w + static_cast<std::int64_t>(g) * k * n;
    if (m > 0) {
      Eigen::Map<const RowMajor> xm(x, m, k);
      Eigen::Map<const RowMajor> wm(wg, k, n);
      Eigen::Map<RowMajor> ym(y, m, n);
      ym.noalias() = xm * wm;
    }
    x += m * k;
    y += m * n;
  }
}

std::unique_ptr<GemmBench> make_cpu_gemm_bench() { return std::make_unique<CpuGemmBench>(); }

}  // namespace moesim::kernels
