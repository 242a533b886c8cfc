// What `moesim sweep` computes and writes, apart from its scheduling and printing, shared with
// the Python package (docs/python.md).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/sweep.h"
#include "scenarios/sweep_analysis.h"

namespace moesim::tools {

// Runs one point: "ok" with its metrics, "skipped" with the reason when the combination does not
// validate or fit, "failed" with the message of an internal error.
scenarios::SweepRow run_sweep_point(const scenarios::SweepSpec& spec, const scenarios::SweepPoint& point);

// "maximize output_tokens_per_gpu_s subject to tpot_p90 <= 50 ms, ...".
std::string sweep_objective_text(const scenarios::SweepObjective& objective);

// Writes pareto.csv, best.yaml (removed when no point meets the constraints) and report.html for
// `rows` in index order; returns the best row's position in `rows`.
std::optional<std::size_t> write_sweep_summary(const scenarios::SweepSpec& spec,
                                               const std::vector<scenarios::SweepPoint>& points,
                                               const std::vector<scenarios::SweepRow>& rows,
                                               const std::filesystem::path& dir);

// Everything `moesim sweep -o DIR` writes, at once: the folder, results.jsonl and results.csv
// with `rows` in their order, then write_sweep_summary's files.
std::optional<std::size_t> write_sweep_outputs(const scenarios::SweepSpec& spec,
                                               const std::vector<scenarios::SweepPoint>& points,
                                               const std::vector<scenarios::SweepRow>& rows,
                                               const std::filesystem::path& dir);

}  // namespace moesim::tools
