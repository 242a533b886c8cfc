// `moesim sweep`: rows streamed to results.jsonl/csv, -j 1 and -j 2 agree, kill-and-resume gives
// the uninterrupted result, invalid points are skipped with a reason, best.yaml runs.
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
using moesim::testing::read_file;
using moesim::testing::run_moesim;

constexpr const char* kBase =
    "name: tiny-sweep-base\nseed: 3\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\n"
    "deployment:\n  colocated:\n    ranks: 8\n    attention: {dp: 8}\n    moe: {ep: 8}\n"
    "workload:\n  requests: 40\n  arrivals: {process: poisson, rate: 200/s}\n"
    "  input_tokens: {dist: fixed, value: 300}\n  output_tokens: {dist: fixed, value: 20}\n"
    "slo: {ttft_p90: 2s, tpot_p90: 50ms}\n";

// 3 x 2 points; ranks 3 does not divide the 16 experts, so points 4 and 5 are skipped.
constexpr const char* kSweep =
    "base: base.yaml\n"
    "sweep:\n  deployment.colocated.ranks: [4, 8, 3]\n  workload.arrivals.rate: [100/s, 400/s]\n"
    "derived:\n  deployment.colocated.attention.dp: deployment.colocated.ranks\n"
    "  deployment.colocated.moe.ep: deployment.colocated.ranks\n"
    "objective: {maximize: output_tokens_per_gpu_s, subject_to: {tpot_p90: 50ms, ttft_p90: 2s}}\n";

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("moesim-sweep-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    write("base.yaml", kBase);
    write("sw.yaml", kSweep);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  moesim::testing::CliResult sweep(const std::string& out, const std::string& flags) const {
    return run_moesim("sweep " + path("sw.yaml") + " -o " + path(out) + " " + flags);
  }

  fs::path dir_;
};

std::vector<std::string> lines(const fs::path& p) {
  std::vector<std::string> out;
  std::istringstream in(read_file(p));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Data rows ordered by their leading point index (both files start a row with it).
std::vector<std::string> sorted_rows(std::vector<std::string> rows) {
  auto index = [](const std::string& row) {
    const auto digits = row.find_first_of("0123456789");
    return std::stoul(row.substr(digits));
  };
  std::sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return index(a) < index(b); });
  return rows;
}

std::vector<std::string> csv_rows(const fs::path& p) {
  auto all = lines(p);
  all.erase(all.begin());  // header
  return sorted_rows(all);
}

TEST_F(SweepCli, StreamsOneRowPerPointAndSkipsInvalidOnes) {
  const auto r = sweep("out", "-j 1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << "no progress bar when piped";
  const auto jsonl = sorted_rows(lines(dir_ / "out/results.jsonl"));
  ASSERT_EQ(jsonl.size(), 6u);
  const auto csv = lines(dir_ / "out/results.csv");
  ASSERT_EQ(csv.size(), 7u);
  EXPECT_EQ(csv[0].rfind("index,status,deployment.colocated.ranks,workload.arrivals.rate,"
                         "deployment.colocated.attention.dp,deployment.colocated.moe.ep,output_tokens_per_gpu_s,",
                         0),
            0u)
      << csv[0];
  EXPECT_EQ(jsonl[0].rfind("{\"index\":0,\"status\":\"ok\",\"params\":{\"deployment.colocated.ranks\":\"4\","
                           "\"workload.arrivals.rate\":\"100/s\",\"deployment.colocated.attention.dp\":\"4\","
                           "\"deployment.colocated.moe.ep\":\"4\"},\"metrics\":{\"output_tokens_per_gpu_s\":",
                           0),
            0u)
      << jsonl[0];
  EXPECT_EQ(jsonl[4],
            "{\"index\":4,\"status\":\"skipped\",\"params\":{\"deployment.colocated.ranks\":\"3\","
            "\"workload.arrivals.rate\":\"100/s\",\"deployment.colocated.attention.dp\":\"3\","
            "\"deployment.colocated.moe.ep\":\"3\"},\"metrics\":{},\"reason\":\"--set deployment.colocated.moe.ep=3: "
            "deployment.colocated.moe.ep: 16 routed experts do not divide over ep 3\"}");
  EXPECT_NE(r.out.find("4 points ran, 2 skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Pareto frontier: output tokens/s per GPU vs tpot_p90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Pareto frontier: output tokens/s per GPU vs ttft_p90"), std::string::npos) << r.out;
  const auto pareto = lines(dir_ / "out/pareto.csv");
  ASSERT_GE(pareto.size(), 3u);
  EXPECT_EQ(pareto[0],
            "frontier,index,deployment.colocated.ranks,workload.arrivals.rate,deployment.colocated.attention.dp,"
            "deployment.colocated.moe.ep,output_tokens_per_gpu_s,latency_s");
}

TEST_F(SweepCli, OneAndTwoThreadsGiveTheSameRows) {
  ASSERT_EQ(sweep("one", "-j 1").exit_code, 0);
  const auto r = sweep("two", "-j 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(sorted_rows(lines(dir_ / "one/results.jsonl")), sorted_rows(lines(dir_ / "two/results.jsonl")));
  EXPECT_EQ(csv_rows(dir_ / "one/results.csv"), csv_rows(dir_ / "two/results.csv"));
  EXPECT_EQ(read_file(dir_ / "one/pareto.csv"), read_file(dir_ / "two/pareto.csv"));
  EXPECT_EQ(read_file(dir_ / "one/best.yaml"), read_file(dir_ / "two/best.yaml"));
}

TEST_F(SweepCli, ResumeAfterAKillMatchesAnUninterruptedRun) {
  ASSERT_EQ(sweep("full", "-j 2").exit_code, 0);
  // A killed sweep: two complete rows and half of the third.
  const auto full = lines(dir_ / "full/results.jsonl");
  fs::create_directories(dir_ / "killed");
  write("killed/results.jsonl", full[0] + "\n" + full[1] + "\n" + full[2].substr(0, full[2].size() / 2));
  const auto r = sweep("killed", "-j 2 --resume");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("6 points, 2 already done, 4 to run"), std::string::npos) << r.out;
  const auto resumed = lines(dir_ / "killed/results.jsonl");
  EXPECT_EQ(resumed.size(), 6u);
  EXPECT_EQ(sorted_rows(resumed), sorted_rows(full));
  EXPECT_EQ(csv_rows(dir_ / "killed/results.csv"), csv_rows(dir_ / "full/results.csv"));
  EXPECT_EQ(read_file(dir_ / "killed/best.yaml"), read_file(dir_ / "full/best.yaml"));

  // Resuming a finished sweep runs nothing and duplicates nothing.
  const auto again = sweep("killed", "--resume");
  ASSERT_EQ(again.exit_code, 0) << again.out;
  EXPECT_NE(again.out.find("6 already done, 0 to run"), std::string::npos) << again.out;
  EXPECT_EQ(lines(dir_ / "killed/results.jsonl").size(), 6u);
}

TEST_F(SweepCli, ResumeRefusesRowsOfAnotherSweep) {
  ASSERT_EQ(sweep("out", "-q").exit_code, 0);
  write("sw.yaml", std::string(kSweep).replace(std::string(kSweep).find("[4, 8, 3]"), 9, "[8, 4, 3]"));
  const auto r = sweep("out", "--resume");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("results.jsonl:1: row "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("was not written by this sweep (its parameters differ)"), std::string::npos) << r.out;
}

TEST_F(SweepCli, BestYamlIsARunnableScenario) {
  ASSERT_EQ(sweep("out", "-q").exit_code, 0);
  const std::string best = read_file(dir_ / "out/best.yaml");
  EXPECT_EQ(best.rfind("# Best point (1) of sweep ", 0), 0u) << best;
  EXPECT_NE(best.find("--set 'deployment.colocated.ranks=4' --set 'workload.arrivals.rate=400/s'"), std::string::npos)
      << best;
  const auto r = run_moesim("run " + path("out/best.yaml") + " -o " + path("best-run"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "best-run/summary.json"));
}

TEST_F(SweepCli, ABadPathFailsBeforeAnythingRuns) {
  write("sw.yaml", "base: base.yaml\nsweep:\n  deployment.colocated.moe.epp: [8]\n");
  const auto r = sweep("out", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + path("sw.yaml") +
                       ":3:3: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?\n");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(SweepCli, AnEmptyGridOrAMissingFileIsOneErrorBeforeAnythingRuns) {
  write("sw.yaml", "base: base.yaml\n");
  auto r = sweep("out", "");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + path("sw.yaml") +
                       ":1:1: nothing to sweep: give 'sweep' (or 'zip') with at least one key and its values\n");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  r = run_moesim("sweep " + path("missing.yaml") + " -o " + path("out"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: cannot open sweep file '" + path("missing.yaml") + "'\n");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

#ifndef MOESIM_WITH_MPI
// A build without MPI started by mpirun would run the whole sweep once per rank into the same
// files; it refuses instead (the environment variable is what Open MPI's launcher sets).
TEST_F(SweepCli, ABuildWithoutMpiRefusesToRunAsSeveralRanks) {
  const std::string cmd = "OMPI_COMM_WORLD_SIZE=2 " + std::string(MOESIM_BINARY) + " sweep " + path("sw.yaml") +
                          " -o " + path("mpi") + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
  EXPECT_EQ(out,
            "moesim: started as one of 2 MPI ranks, but this moesim was built without MPI (MOESIM_MPI): run "
            "the sweep without mpirun (-j N for threads), or rebuild with Open MPI installed\n");
  EXPECT_FALSE(fs::exists(dir_ / "mpi"));
}
#endif

}  // namespace
