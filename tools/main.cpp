// moesim: the command line. Parses flags with CLI11, dispatches to a subcommand, and is the one
// place where the boundary exceptions are caught: bad input prints one line and exits 2.
#include <CLI/CLI.hpp>

#include <iostream>

#include "scenarios/scenario_error.h"
#include "sim/check.h"
#include "sim/deployment.h"
#include "tools/commands.h"
#include "topology/cluster.h"

namespace {

constexpr int kBadInput = 2;
constexpr int kInternalError = 3;

int fail(const std::string& message, int code) {
  std::cerr << "moesim: " << message << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace moesim;
  CLI::App app{"moesim: discrete-event simulator of MoE inference on GPU/NPU clusters", "moesim"};
  app.set_version_flag("--version", std::string("moesim ") + MOESIM_VERSION);
  app.require_subcommand(1);

  tools::RunOptions run;
  auto* run_cmd = app.add_subcommand("run", "Simulate one scenario and write its report");
  run_cmd->add_option("scenario", run.scenario, "Scenario YAML file")->required();
  run_cmd->add_option("-o,--output", run.output_dir, "Output folder (default: out/<scenario name>)");
  run_cmd->add_option("--set", run.overrides, "Override a scenario key: --set a.b.c=value (repeatable)");
  run_cmd->add_option("--seed", run.seed, "Override the scenario's random seed");
  run_cmd->add_flag("-q,--quiet", run.quiet, "Write the outputs but print nothing");

  auto* list_cmd = app.add_subcommand("list", "List presets and every registry of pluggable models");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (see 'moesim --help')", kBadInput);
  }

  try {
    if (*run_cmd) return tools::run_command(run);
    if (*list_cmd) return tools::list_command();
  } catch (const scenarios::ScenarioError& e) {
    return fail(e.what(), kBadInput);
  } catch (const sim::DeploymentError& e) {
    return fail(std::string("deployment: ") + e.what(), kBadInput);
  } catch (const topology::TopologyError& e) {
    return fail(std::string("cluster: ") + e.what(), kBadInput);
  } catch (const sim::InvariantError& e) {
    return fail(std::string("internal error: ") + e.what(), kInternalError);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
  return 0;
}
