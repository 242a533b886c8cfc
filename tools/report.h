// Report writers for a finished run: the stdout summary table, summary.json, requests.csv and
// steps.csv. summary.json is deterministic (fixed key order and number formatting), so two runs
// of the same scenario and seed produce identical bytes.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "sim/simulation.h"

namespace moesim::tools {

// The hardware a run's GPUs are: the scenario's, or with pools on hardware of their own
// "h800 (prefill) + h20 (decode)".
std::string hardware_text(const scenarios::Scenario& scenario);
void print_summary(std::ostream& out, const scenarios::Scenario& scenario, const sim::SimulationResult& result);
std::string summary_json(const scenarios::Scenario& scenario, const sim::SimulationResult& result);
void write_requests_csv(const std::filesystem::path& path, const sim::SimulationResult& result);
void write_steps_csv(const std::filesystem::path& path, const sim::SimulationResult& result);
// Across-seed replications (`--seeds N`): the metrics of each seed and their 95 % intervals.
std::string seeds_json(std::uint64_t first_seed, const std::vector<sim::Summary>& replicas);
void print_seed_table(std::ostream& out, std::uint64_t first_seed, const std::vector<sim::Summary>& replicas);

}  // namespace moesim::tools
