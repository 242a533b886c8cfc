#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "scenarios/loader.h"
#include "tools/commands.h"
#include "tools/report.h"

namespace moesim::tools {
namespace {

struct RunOptions {
  std::string scenario;
  std::string output_dir;  // empty: out/<scenario name>
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  bool quiet = false;
};

int run_scenario(const RunOptions& o) {
  auto overrides = o.overrides;
  if (o.seed) overrides.push_back("seed=" + std::to_string(*o.seed));
  const scenarios::Scenario scenario = scenarios::load_scenario_file(o.scenario, overrides);

  const auto t0 = std::chrono::steady_clock::now();
  const sim::SimulationResult result = sim::simulate(scenarios::simulation_config(scenario));
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::filesystem::path dir = o.output_dir.empty() ? std::filesystem::path("out") / scenario.name
                                                         : std::filesystem::path(o.output_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder '" + dir.string() + "': " + ec.message());
  {
    std::ofstream json(dir / "summary.json");
    if (!json) throw std::runtime_error("cannot write '" + (dir / "summary.json").string() + "'");
    json << summary_json(scenario, result);
  }
  if (scenario.outputs.requests_csv) write_requests_csv(dir / "requests.csv", result);
  write_steps_csv(dir / "steps.csv", result);

  if (!o.quiet) {
    print_summary(std::cout, scenario, result);
    std::cout << "\n  simulated " << result.events << " events in " << wall_s << " s wall; outputs in "
              << dir.string() << "/\n";
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Simulate one scenario and write its report");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("-o,--output", options->output_dir, "Output folder (default: out/<scenario name>)");
  cmd->add_option("--set", options->overrides, "Override a scenario key: --set a.b.c=value (repeatable)");
  cmd->add_option("--seed", options->seed, "Override the scenario's random seed");
  cmd->add_flag("-q,--quiet", options->quiet, "Write the outputs but print nothing");
  return {cmd, [options] { return run_scenario(*options); }};
}

}  // namespace moesim::tools
