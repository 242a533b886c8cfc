// `mpirun -np 2 moesim sweep`: the rows, frontiers and best point equal a one-thread run's, rank 0
// says it used the other rank, and --resume under MPI completes a cut-short results file.
// Built only with MOESIM_MPI (tests/CMakeLists.txt); as root, Open MPI is told that is wanted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::CliResult;
using moesim::testing::run_moesim;

constexpr const char* kBase =
    "name: tiny-mpi-base\nseed: 11\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\n"
    "deployment:\n  colocated:\n    ranks: 8\n    attention: {dp: 8}\n    moe: {ep: 8}\n"
    "workload:\n  requests: 30\n  arrivals: {process: poisson, rate: 200/s}\n"
    "  input_tokens: {dist: fixed, value: 200}\n  output_tokens: {dist: fixed, value: 12}\n"
    "slo: {ttft_p90: 2s, tpot_p90: 50ms}\n";

// 4 x 2 points; ranks 3 does not divide the 16 experts, so two are skipped.
constexpr const char* kSweep =
    "base: base.yaml\n"
    "sweep:\n  deployment.colocated.ranks: [2, 4, 8, 3]\n  workload.arrivals.rate: [100/s, 400/s]\n"
    "derived:\n  deployment.colocated.attention.dp: deployment.colocated.ranks\n"
    "  deployment.colocated.moe.ep: deployment.colocated.ranks\n"
    "objective: {maximize: output_tokens_per_gpu_s, subject_to: {tpot_p90: 50ms}}\n";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Data rows (after `skip` header lines), sorted: both files start a row with its index, and the
// same index gives the same row, so sorting as text is enough to compare row sets.
std::vector<std::string> rows(const fs::path& p, std::size_t skip) {
  std::vector<std::string> out;
  std::istringstream in(read(p));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min(skip, out.size())));
  std::sort(out.begin(), out.end());
  return out;
}

class SweepMpi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("moesim-mpi-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "base.yaml", std::ios::binary) << kBase;
    std::ofstream(dir_ / "sw.yaml", std::ios::binary) << kSweep;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  CliResult mpi_sweep(const std::string& out, const std::string& flags) const {
    const std::string cmd = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " MOESIM_MPIEXEC
                            " -np 2 --oversubscribe " MOESIM_BINARY " sweep " +
                            (dir_ / "sw.yaml").string() + " -o " + (dir_ / out).string() + " " + flags + " 2>&1";
    CliResult r;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    while (fgets(buf, sizeof buf, p)) r.out += buf;
    const int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }
  void expect_same_results(const std::string& a, const std::string& b) const {
    EXPECT_EQ(rows(dir_ / a / "results.jsonl", 0), rows(dir_ / b / "results.jsonl", 0));
    EXPECT_EQ(read(dir_ / a / "results.csv").substr(0, read(dir_ / a / "results.csv").find('\n')),
              read(dir_ / b / "results.csv").substr(0, read(dir_ / b / "results.csv").find('\n')));
    EXPECT_EQ(rows(dir_ / a / "results.csv", 1), rows(dir_ / b / "results.csv", 1));
    EXPECT_EQ(read(dir_ / a / "pareto.csv"), read(dir_ / b / "pareto.csv"));
    EXPECT_EQ(read(dir_ / a / "best.yaml"), read(dir_ / b / "best.yaml"));
  }
  fs::path dir_;
};

TEST_F(SweepMpi, TwoRanksGiveTheRowsOfOneThread) {
  const auto one = run_moesim("sweep " + (dir_ / "sw.yaml").string() + " -o " + (dir_ / "one").string() + " -j 1");
  ASSERT_EQ(one.exit_code, 0) << one.out;
  const auto mpi = mpi_sweep("mpi", "");
  ASSERT_EQ(mpi.exit_code, 0) << mpi.out;
  EXPECT_NE(mpi.out.find("8 points, 0 already done, 8 to run on 1 thread and 1 MPI worker rank\n"), std::string::npos)
      << mpi.out;
  EXPECT_EQ(rows(dir_ / "mpi" / "results.jsonl", 0).size(), 8u);
  expect_same_results("one", "mpi");
}

TEST_F(SweepMpi, ResumeUnderMpiCompletesACutShortRun) {
  ASSERT_EQ(
      run_moesim("sweep " + (dir_ / "sw.yaml").string() + " -o " + (dir_ / "one").string() + " -j 1 -q").exit_code, 0);
  // As a killed sweep leaves it: three whole rows and half of a fourth.
  fs::create_directories(dir_ / "cut");
  const std::string full = read(dir_ / "one" / "results.jsonl");
  std::size_t end = 0;
  for (int i = 0; i < 3; ++i) end = full.find('\n', end) + 1;
  std::ofstream(dir_ / "cut" / "results.jsonl", std::ios::binary) << full.substr(0, end + 20);
  const auto resumed = mpi_sweep("cut", "--resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("8 points, 3 already done, 5 to run"), std::string::npos) << resumed.out;
  expect_same_results("one", "cut");
}

}  // namespace
