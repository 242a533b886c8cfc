// Progress bars (tools/progress_bar.h): `moesim run` and `moesim sweep` draw one on stderr when
// it is a terminal (a pseudo-terminal from script(1) here), and never when it is a pipe or when
// CI is set.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;

// Enough decode steps (~150) for several progress callbacks (one per 64 steps).
constexpr const char* kProgressScenario =
    "name: tiny-progress\nseed: 2\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\n"
    "deployment:\n  colocated:\n    ranks: 8\n    attention: {dp: 8}\n    moe: {ep: 8}\n"
    "workload:\n  requests: 80\n  arrivals: {process: poisson, rate: 100/s}\n"
    "  input_tokens: {dist: fixed, value: 100}\n  output_tokens: {dist: fixed, value: 120}\n";

class ProgressCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("moesim-progress-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "scn.yaml", std::ios::binary) << kProgressScenario;
    std::ofstream(dir_ / "sw.yaml", std::ios::binary) << "base: scn.yaml\nsweep: {seed: [1, 2, 3]}\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  struct CliRunnerCommand {
    std::string cmd;
    moesim::testing::CliResult run() const {
      moesim::testing::CliResult r;
      FILE* p = popen((cmd + " 2>&1").c_str(), "r");
      if (!p) return r;
      char buf[4096];
      while (fgets(buf, sizeof buf, p)) r.out += buf;
      const int status = pclose(p);
      r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      return r;
    }
  };
  // Runs moesim with its stdout and stderr on a pseudo-terminal; `env` prefixes the command.
  moesim::testing::CliResult on_terminal(const std::string& env, const std::string& args) const {
    const std::string inner = std::string(MOESIM_BINARY) + " " + args;
    CliRunnerCommand c{env + " script -qec '" + inner + "' /dev/null"};
    return c.run();
  }
  std::string run_args() const { return "run " + (dir_ / "scn.yaml").string() + " -o " + (dir_ / "out").string(); }
  std::string sweep_args() const {
    return "sweep " + (dir_ / "sw.yaml").string() + " -o " + (dir_ / "sw").string() + " -j 1";
  }
  fs::path dir_;
};

TEST_F(ProgressCli, RunDrawsABarOnATerminal) {
  const auto r = on_terminal("env -u CI", run_args());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("\r["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("/80 requests  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" requests/s  ETA "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  sim "), std::string::npos) << r.out;
}

TEST_F(ProgressCli, SweepDrawsABarOnATerminal) {
  const auto r = on_terminal("env -u CI", sweep_args());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("] 3/3 points  "), std::string::npos) << r.out;
}

TEST_F(ProgressCli, NoBarInCiOrIntoAPipe) {
  for (const auto& args : {run_args(), sweep_args()}) {
    const auto ci = on_terminal("env CI=true", args);
    ASSERT_EQ(ci.exit_code, 0) << ci.out;
    EXPECT_EQ(ci.out.find("\r["), std::string::npos) << ci.out;
    const auto piped = CliRunnerCommand{"env -u CI " + std::string(MOESIM_BINARY) + " " + args}.run();
    ASSERT_EQ(piped.exit_code, 0) << piped.out;
    EXPECT_EQ(piped.out.find('\r'), std::string::npos) << piped.out;
  }
}

}  // namespace
