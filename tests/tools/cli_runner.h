// Runs the built `moesim` binary with arguments and captures its exit code and output.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace moesim::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

inline CliResult run_moesim(const std::string& args) {
  const std::string cmd = std::string(MOESIM_BINARY) + " " + args + " 2>&1";
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace moesim::testing
