#include "calibration/fitted_cost_model.h"

#include <algorithm>
#include <array>

#include "calibration/attention_efficiency.h"
#include "calibration/bounded_cost_model.h"
#include "models/layer_ops.h"

namespace moesim::calibration {
namespace {

class FittedCostModel final : public BoundedCostModel {
 public:
  FittedCostModel(const HardwareProfile& hw, const GemmFitParams& p, bool forced)
      : BoundedCostModel(hw), p_(p), forced_(forced) {}

  KernelCost gemm(std::int64_t m, std::int64_t n, std::int64_t k, models::DType dtype) const override {
    if (m <= 0) return {};
    return to_cost(estimate_gemm(m, n, k, models::bytes_per_element(dtype), device(dtype), params(dtype), memo(dtype)));
  }

  // Grouped GEMMs use per-group tiles (the masked layout; the contiguous layout's 128-row padding
  // differs from it by under one tile row per group).
  KernelCost grouped_gemm(std::span<const std::int64_t> tokens, std::int64_t n, std::int64_t k,
                          models::DType dtype) const override {
    return to_cost(estimate_grouped_gemm(tokens, n, k, models::bytes_per_element(dtype), GroupedLayout::kMasked,
                                         device(dtype), params(dtype), memo(dtype)));
  }

  void grouped_gemm_times(std::span<const std::int64_t> tokens, std::size_t groups_per_device,
                          std::span<const GemmShape> shapes, models::DType dtype,
                          std::span<double> time_ns) const override {
    estimate_grouped_gemm_times(tokens, groups_per_device, shapes, models::bytes_per_element(dtype),
                                GroupedLayout::kMasked, device(dtype), params(dtype), memo(dtype), time_ns);
  }

  double launch_overhead_ns() const override { return p_.fixed_overhead_ns; }
  double achievable_hbm_bytes_per_s() const override { return p_.hbm_fraction * hw().hbm_bytes_per_s; }

  // bound(0, bytes, ·) per kernel, without a call each: the same operations.
  void memory_op_times(std::span<const double> bytes, std::span<double> time_ns) const override {
    const double compute_ns = 0 / (p_.mma_fraction * hw().peak_bf16_flops) * 1e9;
    const double bandwidth = p_.hbm_fraction * hw().hbm_bytes_per_s;
    for (std::size_t i = 0; i < bytes.size() && i < time_ns.size(); ++i)
      time_ns[i] = std::max(compute_ns, bytes[i] / bandwidth * 1e9) + p_.fixed_overhead_ns;
  }

 private:
  const GemmFitParams& params(models::DType dtype) const {
    if (forced_) return p_;
    const GemmFitParams* f = hw().gemm_fit(dtype);
    return f ? *f : p_;
  }

  GemmDevice device(models::DType dtype) const { return {hw().sm_count, hw().peak_flops(dtype), hw().hbm_bytes_per_s}; }

  static KernelCost to_cost(const GemmEstimate& e) {
    KernelCost c;
    c.time_ns = e.time_ns;
    c.flops = e.flops;
    c.bytes = e.bytes;
    c.compute_bound = e.compute_bound;
    return c;
  }

  // Attention prefill at the kernels' measured efficiency by sequence length
  // (calibration/attention_efficiency.h); memory at the fitted HBM fraction.
  double prefill_work_ns(const models::Work& w, double span, bool absorbed, double peak) const override {
    const double fraction = absorbed ? attention_.absorbed_fraction : prefill_attention_fraction(attention_, span);
    const double compute_ns = w.flops / (fraction * peak) * 1e9;
    const double memory_ns = w.bytes / (p_.hbm_fraction * hw().hbm_bytes_per_s) * 1e9;
    return std::max(compute_ns, memory_ns);
  }

  // Roofline at the fitted achievable fractions, plus the fitted per-kernel overhead.
  KernelCost bound(double flops, double bytes, double peak) const override {
    KernelCost c;
    c.flops = flops;
    c.bytes = bytes;
    const double compute_ns = flops / (p_.mma_fraction * peak) * 1e9;
    const double memory_ns = bytes / (p_.hbm_fraction * hw().hbm_bytes_per_s) * 1e9;
    c.compute_bound = compute_ns >= memory_ns;
    c.time_ns = std::max(compute_ns, memory_ns) + p_.fixed_overhead_ns;
    return c;
  }

  // One tiling memo per operand dtype (the device's peak and the fit differ by dtype).
  TilingMemo* memo(models::DType dtype) const {
    const auto i = static_cast<std::size_t>(dtype);
    return i < memos_.size() ? &memos_[i] : nullptr;
  }

  GemmFitParams p_;  // forced, or the profile's first fit, or the DeepGEMM H800 fit
  AttentionFitParams attention_ = flash_attention_fit();
  bool forced_;
  mutable std::array<TilingMemo, 8> memos_;
};

}  // namespace

std::unique_ptr<CostModel> make_fitted_cost_model(const HardwareProfile& hw) {
  return std::make_unique<FittedCostModel>(hw, hw.gemm_fits.empty() ? deepgemm_h800_fit() : hw.gemm_fits.front().params,
                                           false);
}

std::unique_ptr<CostModel> make_fitted_cost_model(const HardwareProfile& hw, const GemmFitParams& params) {
  return std::make_unique<FittedCostModel>(hw, params, true);
}

}  // namespace moesim::calibration
