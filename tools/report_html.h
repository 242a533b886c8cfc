// report.html (docs/report.md): one self-contained page per run or sweep, charts drawn by
// plotly.js embedded in the page, the data as JSON in the page; no network access is needed to
// open it.
//
// A run's page: TTFT and TPOT CDFs; per pool, the per-layer stacked time breakdown with the wall
// time and exposed communication, the expert-load heatmap (MoE layer x expert), the rank load
// over time and the link utilisation. A sweep's page: the Pareto frontiers (output tokens/s per
// GPU vs p90 TPOT and vs p90 TTFT) over every point, with each point's parameters on hover, the
// best point and the skipped points.
//
// Each chart is a <div class="chart" id="chart-..."> that plotly fills; when every chart has
// been drawn the page adds <div id="report-status" data-charts="ids" data-errors="N"
// data-fetched="M">: the charts drawn, the script errors and console errors or warnings seen while
// rendering, and the resources fetched from outside the file (what tests/tools/report_html_test.cpp
// checks).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/sweep.h"
#include "scenarios/sweep_analysis.h"
#include "sim/simulation.h"

namespace moesim::tools {

std::string run_report_html(const scenarios::Scenario& scenario, const sim::SimulationResult& result);

// `rows` sorted by index; `best` a position in `rows` (scenarios::best_row).
std::string sweep_report_html(const scenarios::SweepSpec& spec, const std::vector<scenarios::SweepRow>& rows,
                              std::optional<std::size_t> best);

// The page around `data_json` (a JSON object) for the page script `script` (an asset name).
std::string report_page(std::string_view title, std::string_view data_json, std::string_view script);

}  // namespace moesim::tools
