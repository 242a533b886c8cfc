#include "calibration/cost_model.h"

#include <algorithm>
#include <string>

#include "calibration/bounded_cost_model.h"
#include "calibration/calibration_error.h"
#include "calibration/fitted_cost_model.h"
#include "models/layer_ops.h"

namespace moesim::calibration {
namespace {

// Typical launch + tail of a small CUDA kernel on Hopper (measured launch latencies are 2-5 us;
// with CUDA graphs in decode the per-kernel cost is ~2 us). Assumption until calibrated.
constexpr double kLaunchNs = 2'000;

class RooflineCostModel final : public BoundedCostModel {
 public:
  explicit RooflineCostModel(const HardwareProfile& hw) : BoundedCostModel(hw) {}

  KernelCost gemm(std::int64_t m, std::int64_t n, std::int64_t k, models::DType dtype) const override {
    const double flops = 2.0 * m * n * k;
    const double bytes = static_cast<double>(k) * n * models::bytes_per_element(dtype) +
                         static_cast<double>(m) * k * models::bytes_per_element(dtype) +
                         static_cast<double>(m) * n * 2.0;
    return bound(flops, bytes, hw().peak_flops(dtype));
  }

  KernelCost grouped_gemm(std::span<const std::int64_t> tokens, std::int64_t n, std::int64_t k,
                          models::DType dtype) const override {
    double rows = 0, groups = 0;
    for (auto t : tokens) {
      rows += static_cast<double>(t);
      groups += t > 0 ? 1 : 0;
    }
    if (rows == 0) return {};
    const double e = models::bytes_per_element(dtype);
    const double flops = 2.0 * rows * n * k;
    const double bytes = groups * k * n * e + rows * k * e + rows * n * 2.0;
    return bound(flops, bytes, hw().peak_flops(dtype));
  }

  double launch_overhead_ns() const override { return kLaunchNs; }

 private:
  KernelCost bound(double flops, double bytes, double peak) const override {
    KernelCost c;
    c.flops = flops;
    c.bytes = bytes;
    const double compute_ns = flops / peak * 1e9;
    const double memory_ns = bytes / hw().hbm_bytes_per_s * 1e9;
    c.compute_bound = compute_ns >= memory_ns;
    c.time_ns = std::max(compute_ns, memory_ns) + kLaunchNs;
    return c;
  }
};

}  // namespace

void CostModel::memory_op_times(std::span<const double> bytes, std::span<double> time_ns) const {
  for (std::size_t i = 0; i < bytes.size() && i < time_ns.size(); ++i) time_ns[i] = memory_op(bytes[i]).time_ns;
}

void CostModel::grouped_gemm_times(std::span<const std::int64_t> tokens, std::size_t groups_per_device,
                                   std::span<const GemmShape> shapes, models::DType dtype,
                                   std::span<double> time_ns) const {
  if (groups_per_device == 0) return;
  for (std::size_t d = 0; d < time_ns.size() && (d + 1) * groups_per_device <= tokens.size(); ++d) {
    const auto groups = tokens.subspan(d * groups_per_device, groups_per_device);
    double t = 0;
    for (const GemmShape& shape : shapes) t += grouped_gemm(groups, shape.n, shape.k, dtype).time_ns;
    time_ns[d] = t;
  }
}

std::vector<models::RegistryEntry> cost_models() {
  return {{"roofline", "max(FLOPs/peak, bytes/HBM bandwidth) + launch overhead, spec-sheet peaks"},
          {"fitted",
           "tile/wave GEMM model fitted to DeepGEMM H800 (calibration/data/deepgemm_h800.csv), or a "
           "measured profile's own fit; roofline at fitted fractions of peak for attention and memory ops"}};
}

CostModelKind cost_model_kind(std::string_view name) {
  const auto entries = cost_models();
  if (const auto kind = models::registry_lookup<CostModelKind>(entries, name)) return *kind;
  throw CalibrationError("unknown cost model '" + std::string(name) + "' (valid: " + models::join_names(entries) + ")");
}

std::string_view to_string(CostModelKind kind) { return models::registry_name(cost_models(), kind); }

std::unique_ptr<CostModel> make_cost_model(CostModelKind kind, const HardwareProfile& hw) {
  switch (kind) {
    case CostModelKind::kRoofline: return std::make_unique<RooflineCostModel>(hw);
    case CostModelKind::kFitted: return make_fitted_cost_model(hw);
  }
  throw CalibrationError("make_cost_model: bad cost model value");
}

}  // namespace moesim::calibration
