// moesim: the command line. Registers the subcommands (tools/commands.h), parses flags with
// CLI11, runs the chosen one, and is the one place where the boundary exceptions are caught:
// bad input prints one line and exits 2.
#include <CLI/CLI.hpp>

#include <iostream>
#include <vector>

#include "calibration/calibration_error.h"
#include "calibration/hardware_yaml.h"
#include "kernels/all_to_all_bench.h"
#include "kernels/bench_types.h"
#include "models/model_error.h"
#include "scenarios/scenario_error.h"
#include "sim/check.h"
#include "sim/deployment.h"
#include "tools/commands.h"
#include "topology/cluster.h"
#include "workloads/workload_error.h"

namespace {

constexpr int kBadInput = 2;
constexpr int kInternalError = 3;

// Prints the one line, then ends the whole job if this process is one of an MPI-launched
// all-to-all capture: the other processes would otherwise wait for it forever.
int fail(const std::string& message, int code) {
  std::cerr << "moesim: " << message << "\n";
  moesim::kernels::abort_parallel_job(code);
  return code;
}

// The invocation as one line (arguments with spaces quoted), for captured data's metadata.
std::string command_line(int argc, char** argv) {
  std::string s = "moesim";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    s += " " + (a.find_first_of(" \t\"'") == std::string::npos ? a : "'" + a + "'");
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace moesim;
  CLI::App app{"moesim: discrete-event simulator of MoE inference on GPU/NPU clusters", "moesim"};
  app.set_version_flag("--version", std::string("moesim ") + MOESIM_VERSION);
  app.require_subcommand(1);

  const std::vector<tools::Command> commands = {
      tools::add_run_command(app),
      tools::add_list_command(app),
      tools::add_comm_command(app),
      tools::add_routing_command(app),
      tools::add_show_command(app),
      tools::add_gemm_command(app),
      tools::add_topo_command(app),
      tools::add_sweep_command(app),
      tools::add_trace_command(app),
      tools::add_validate_command(app),
      tools::add_calibrate_command(app, command_line(argc, argv)),
  };

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
    for (const auto& c : commands)
      if (c.app->parsed()) return c.action();
  } catch (const tools::UsageError& e) {
    return fail(e.what(), kBadInput);
  } catch (const scenarios::ScenarioError& e) {
    return fail(e.what(), kBadInput);
  } catch (const workloads::WorkloadError& e) {
    return fail(e.what(), kBadInput);
  } catch (const models::ModelError& e) {
    return fail(e.what(), kBadInput);
  } catch (const calibration::HardwareError& e) {
    return fail(e.what(), kBadInput);
  } catch (const calibration::CalibrationError& e) {
    return fail(e.what(), kBadInput);
  } catch (const kernels::KernelError& e) {
    return fail(std::string("kernels: ") + e.what(), kBadInput);
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
