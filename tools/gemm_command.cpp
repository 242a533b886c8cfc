// `moesim gemm`: the cost model's prediction for one GEMM or grouped GEMM (a kernel-level
// what-if): time, achieved TFLOPS and whether it is compute- or memory-bound.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/did_you_mean.h"
#include "models/dtype.h"
#include "tools/commands.h"
#include "tools/gemm_command.h"

namespace moesim::tools {
namespace {

template <typename Entries>
std::vector<std::string_view> names_of(const Entries& entries) {
  std::vector<std::string_view> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

int predict(const GemmOptions& o) {
  const GemmPrediction p = predict_gemm(o);
  const calibration::KernelCost& c = p.cost;
  std::printf("%s n=%lld k=%lld %s on %s (%s model)\n", p.shape.c_str(), static_cast<long long>(o.n),
              static_cast<long long>(o.k), o.dtype.c_str(), p.device.c_str(), o.cost_model.c_str());
  std::printf("  time      %10.2f us\n", c.time_ns * 1e-3);
  std::printf("  achieved  %10.1f TFLOPS (peak %.0f of its %s units)\n",
              c.time_ns > 0 ? c.flops / c.time_ns * 1e-3 : 0.0, p.peak_flops_per_s * 1e-12, p.units.c_str());
  std::printf("  traffic   %10.1f GB/s of HBM (%.2f MB)\n", c.time_ns > 0 ? c.bytes / c.time_ns : 0.0, c.bytes * 1e-6);
  std::printf("  bound     %s\n", c.compute_bound ? "compute" : "memory");
  return 0;
}

}  // namespace

GemmPrediction predict_gemm(const GemmOptions& o) {
  const auto hw = calibration::find_hardware_preset(o.device);
  if (!hw)
    throw UsageError("--device: " +
                     models::unknown_name_message("hardware", o.device, names_of(calibration::hardware_presets())));
  const auto dtype = models::parse_dtype(o.dtype);
  if (!dtype) throw UsageError("--dtype: " + models::unknown_name_message("dtype", o.dtype, models::dtype_names()));
  const auto kind =
      flag_value<calibration::CostModelKind>("--cost-model", "cost model", calibration::cost_models(), o.cost_model);
  const auto model = calibration::make_cost_model(kind, *hw);

  std::vector<std::int64_t> counts = o.counts;
  if (counts.empty() && o.groups > 0) {
    if (o.m <= 0) throw UsageError("--groups needs --m (tokens per group) or --counts");
    counts.assign(static_cast<std::size_t>(o.groups), o.m);
  }
  if (!counts.empty() && o.groups > 0 && static_cast<int>(counts.size()) != o.groups)
    throw UsageError("--counts has " + std::to_string(counts.size()) + " values but --groups is " +
                     std::to_string(o.groups));
  GemmPrediction p;
  p.device = hw->name;
  if (counts.empty()) {
    if (o.m <= 0) throw UsageError("--m is required (or --groups/--counts for a grouped GEMM)");
    p.cost = model->gemm(o.m, o.n, o.k, *dtype);
    p.rows = o.m;
    p.shape = "gemm m=" + std::to_string(o.m);
  } else {
    for (auto v : counts)
      if (v < 0) throw UsageError("--counts: token counts must be >= 0");
    p.cost = model->grouped_gemm(counts, o.n, o.k, *dtype);
    p.groups = static_cast<std::int64_t>(counts.size());
    p.rows = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    p.shape = "grouped gemm " + std::to_string(counts.size()) + " groups, " + std::to_string(p.rows) + " rows";
  }
  p.peak_flops_per_s = hw->peak_flops(*dtype);
  p.units = std::string(calibration::to_string(hw->units(*dtype)));
  return p;
}

void add_gemm_flags(CLI::App& cmd, GemmOptions& o) {
  cmd.add_option("--device", o.device, "Hardware preset");
  cmd.add_option("--m", o.m, "Rows (tokens); per group with --groups")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd.add_option("--n", o.n, "Output columns")->required()->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  cmd.add_option("--k", o.k, "Reduction width")->required()->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  cmd.add_option("--groups", o.groups, "Grouped GEMM: number of groups (experts)")->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--counts", o.counts, "Grouped GEMM: tokens per group, comma separated")->delimiter(',');
  cmd.add_option("--dtype", o.dtype, "Operand dtype: fp8, bf16, ...");
  cmd.add_option("--cost-model", o.cost_model, "Cost model (see 'moesim list')");
}

Command add_gemm_command(CLI::App& app) {
  auto o = std::make_shared<GemmOptions>();
  auto* cmd = app.add_subcommand("gemm", "Predict one GEMM or grouped GEMM with a cost model");
  add_gemm_flags(*cmd, *o);
  return {cmd, [o] { return predict(*o); }};
}

}  // namespace moesim::tools
