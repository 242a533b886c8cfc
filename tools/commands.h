// The `moesim` subcommands. Each returns the process exit code; bad input throws one of the
// boundary exceptions, which main() turns into one line on stderr and exit code 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moesim::tools {

struct RunOptions {
  std::string scenario;
  std::string output_dir;  // empty: out/<scenario name>
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  bool quiet = false;
};

int run_command(const RunOptions& options);
int list_command();

}  // namespace moesim::tools
