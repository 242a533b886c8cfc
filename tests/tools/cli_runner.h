// Runs the built `moesim` binary with arguments and captures its exit code and output; the CLI
// tests' scratch folders and file reads.
#pragma once

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace moesim::testing {

// The default scenario (`make run`), the one the CLI tests run when any scenario will do.
inline const std::string kDefaultScenario = std::string(MOESIM_SOURCE_DIR) + "/scenarios/library/dsv3-h800-32gpu.yaml";

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

// An empty folder <tmp>/<prefix><name>_<pid>, emptied first if a previous run left it.
inline std::filesystem::path scratch_dir(const std::string& prefix, const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / (prefix + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace moesim::testing
