// Running the validation suite (scenarios/validation_suite.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "scenarios/loader.h"
#include "scenarios/validation_suite.h"
#include "sim/simulation.h"

namespace moesim::scenarios {
namespace {

double run_figure(const sim::SimulationResult& r, const std::string& figure) {
  if (figure == "input_tokens_per_gpu_s") return r.summary.input_tokens_per_gpu_s;
  if (figure == "steady_output_tokens_per_gpu_s") return r.pools.back().steady_tokens_per_gpu_s;
  return r.summary.output_tokens_per_gpu_s;
}

void measure(const ValidationSuite& suite, const ValidationCase& c, ValidationRow& row) {
  const std::string file = (std::filesystem::path(suite.dir) / c.scenario).string();
  const sim::SimulationConfig config = simulation_config(load_scenario_file(file, c.overrides));
  row.has_split = true;
  if (c.kind == MeasureKind::kFixedBatch) {
    const sim::FixedBatchResult r = sim::run_fixed_batch(config, c.fixed);
    row.simulated = r.tokens_per_gpu_s();
    row.step_ms = r.step_ms;
    row.phase_ms = r.phase_ms;
    row.exposed_comm_ms = r.exposed_comm_ms;
    row.other_ms = r.lm_head_ms + r.runtime_ms;
    return;
  }
  const sim::SimulationResult r = sim::simulate(config);
  row.simulated = run_figure(r, c.run_figure);
  // The split of the pool that produces the output tokens (the last pool).
  const sim::PoolResult& pool = r.pools.back();
  row.step_ms = pool.mean_step_ms;
  for (std::size_t p = 0; p < row.phase_ms.size(); ++p) row.phase_ms[p] = pool.phase_ns_per_step[p] * 1e-6;
  row.exposed_comm_ms = pool.exposed_comm_ns_per_step * 1e-6;
  row.other_ms = (pool.lm_head_ns_per_step + pool.runtime_ns_per_step) * 1e-6;
}

}  // namespace

ValidationReport run_validation(const ValidationSuite& suite, const std::vector<std::string>& only) {
  // The cases to run: those asked for and, for ratios, the cases they divide.
  std::set<std::string> wanted(only.begin(), only.end());
  for (auto it = suite.cases.rbegin(); it != suite.cases.rend(); ++it)
    if (it->kind == MeasureKind::kRatio && (only.empty() || wanted.count(it->name))) {
      wanted.insert(it->ratio_of);
      wanted.insert(it->ratio_to);
    }
  ValidationReport report;
  std::map<std::string, double> figures;
  std::vector<double> errors;
  for (const ValidationCase& c : suite.cases) {
    if (!only.empty() && !wanted.count(c.name)) continue;
    ValidationRow row;
    row.c = &c;
    if (c.kind == MeasureKind::kRatio) {
      const double to = figures.at(c.ratio_to);
      row.simulated = (to > 0 ? figures.at(c.ratio_of) / to : 0.0) - (c.minus_one ? 1.0 : 0.0);
    } else {
      measure(suite, c, row);
    }
    figures[c.name] = row.simulated;
    if (c.published) {
      row.error = (row.simulated - *c.published) / *c.published;
      if (c.kind != MeasureKind::kRatio) errors.push_back(std::abs(*row.error));
    }
    report.rows.push_back(row);
  }
  report.counted = static_cast<int>(errors.size());
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    report.median_abs_error = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
    report.max_abs_error = errors.back();
  }
  return report;
}

}  // namespace moesim::scenarios
