// The `moesim` subcommands. Each command file registers its CLI11 subcommand and returns the
// action to run when that subcommand is chosen; the action returns the process exit code. Bad
// input throws one of the boundary exceptions, each a models::Error, which main() turns into one
// line on stderr and the exit code of its kind (tools/error_exit.h): 2 for bad input.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "tools/command_errors.h"

namespace moesim::tools {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> action;
};

Command add_run_command(CLI::App& app);       // tools/run_command.cpp
Command add_list_command(CLI::App& app);      // tools/list_command.cpp
Command add_comm_command(CLI::App& app);      // tools/comm_command.cpp
Command add_routing_command(CLI::App& app);   // tools/routing_command.cpp
Command add_show_command(CLI::App& app);      // tools/show_command.cpp
Command add_gemm_command(CLI::App& app);      // tools/gemm_command.cpp
Command add_topo_command(CLI::App& app);      // tools/topo_command.cpp
Command add_sweep_command(CLI::App& app);     // tools/sweep_command.cpp
Command add_trace_command(CLI::App& app);     // tools/trace_command.cpp
Command add_validate_command(CLI::App& app);  // tools/validate_command.cpp
// `command_line` (the whole invocation) is recorded in captured calibration data.
Command add_calibrate_command(CLI::App& app, std::string command_line);  // tools/calibrate_command.cpp

}  // namespace moesim::tools
