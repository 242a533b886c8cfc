// Sweep results: the fixed list of metrics a row carries, the objective and its constraints,
// Pareto frontiers and the CSV text of rows (docs/sweeps.md).
//
// Metric names (objective and subject_to): output_tokens_per_gpu_s, input_tokens_per_gpu_s,
// ttft_p50, ttft_p90, ttft_p99, tpot_p50, tpot_p90, tpot_p99, itl_p99, e2e_p90, slo_attainment,
// goodput_requests_per_s. Latencies are in seconds; their columns carry an "_s" suffix.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/sweep.h"
#include "sim/metrics.h"

namespace moesim::scenarios {

struct SweepMetric {
  std::string_view name;    // as written in an objective
  std::string_view column;  // in results.csv / results.jsonl
  bool latency;             // a latency in seconds (bounds read as durations, shown in ms)
  bool lower_better;        // bounds are upper bounds; otherwise lower bounds
};

const std::vector<SweepMetric>& sweep_metrics();
std::vector<std::string_view> sweep_metric_names();
// Position in sweep_metrics(); the name must be one of them.
std::size_t sweep_metric_index(std::string_view name);
// The summary's values in sweep_metrics() order.
std::vector<double> sweep_metric_values(const sim::Summary& summary);

// One finished point. `status` is "ok" (metrics set), "skipped" (an invalid combination: the
// scenario did not validate or the deployment does not fit; `reason` says why) or "failed" (an
// internal error while simulating).
struct SweepRow {
  std::size_t index = 0;
  std::string status;
  std::string reason;
  std::vector<SweepParam> params;
  std::vector<double> metrics;  // sweep_metrics() order; empty unless ok
};

bool meets_constraints(const SweepRow& row, const SweepObjective& objective);

// The ok row meeting the constraints with the best objective value (ties: lowest index).
std::optional<std::size_t> best_row(const std::vector<SweepRow>& rows, const SweepObjective& objective);

// Positions in `rows` of the ok rows not dominated in (output_tokens_per_gpu_s: higher is better,
// `latency_metric`: lower is better), ordered by latency then index. Equal rows are all kept.
std::vector<std::size_t> pareto_front(const std::vector<SweepRow>& rows, std::string_view latency_metric);

// Shortest text that reads back as the same double ("nan" never occurs in ok rows).
std::string number_text_exact(double x);
// RFC 4180 quoting when needed.
std::string csv_field(std::string_view text);

std::string results_csv_header(const std::vector<std::string>& param_paths);
std::string results_csv_line(const SweepRow& row);

// pareto.csv: "frontier,index,<params>,output_tokens_per_gpu_s,latency_s" with the rows of
// both frontiers (tpot_p90 then ttft_p90).
std::string pareto_csv(const std::vector<SweepRow>& rows, const std::vector<std::string>& param_paths);

}  // namespace moesim::scenarios
