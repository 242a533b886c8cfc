// What `moesim run -o DIR` writes for one run, shared with the Python package (docs/python.md).
#pragma once

#include <filesystem>

#include "scenarios/scenario.h"
#include "sim/simulation.h"

namespace moesim::tools {

// Creates `dir` and writes summary.json, requests.csv (unless the scenario's outputs turn it
// off), steps.csv and, when `report` or the scenario's outputs.report is set, report.html.
// Throws std::runtime_error naming the folder or file that cannot be written.
void write_run_outputs(const std::filesystem::path& dir, const scenarios::Scenario& scenario,
                       const sim::SimulationResult& result, bool report);

}  // namespace moesim::tools
