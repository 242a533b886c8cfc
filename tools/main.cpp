// moesim: the command line. Registers the subcommands (tools/commands.h), parses flags with
// CLI11, runs the chosen one, and is the one place where the boundary exceptions are caught:
// every one is a models::Error, printed as one line with the exit code of its kind
// (tools/error_exit.h): 2 for bad input.
#include <CLI/CLI.hpp>

#include <iostream>
#include <vector>

#include "kernels/all_to_all_bench.h"
#include "models/error.h"
#include "tools/commands.h"
#include "tools/error_exit.h"

namespace {

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
    return fail(std::string(e.what()) + " (see 'moesim --help')", tools::kExitBadInput);
  }

  try {
    for (const auto& c : commands)
      if (c.app->parsed()) return c.action();
  } catch (const models::Error& e) {
    return fail(tools::error_line(e), tools::exit_code(e.kind()));
  } catch (const std::exception& e) {  // not one of ours: a bug or the C++ runtime (bad_alloc)
    return fail(e.what(), tools::kExitFailure);
  }
  return 0;
}
