// End-to-end tests of the `moesim` command line: exit codes, error lines, outputs, determinism.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using Result = moesim::testing::CliResult;
Result run(const std::string& args) { return moesim::testing::run_moesim(args); }

using moesim::testing::read_file;

fs::path cli_dir(const std::string& name) { return moesim::testing::scratch_dir("moesim_cli_test_", name); }

using moesim::testing::kDefaultScenario;
// A small, fast variant of the default scenario.
const std::string kSmall =
    "--set workload.requests=80 --set cluster.nodes=2 --set deployment.colocated.ranks=16 "
    "--set deployment.colocated.attention.dp=16 --set deployment.colocated.moe.ep=16";

TEST(Cli, RunWritesSummaryAndRequests) {
  const auto dir = cli_dir("run");
  const auto r = run("run " + kDefaultScenario + " " + kSmall + " -o " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("TTFT"), std::string::npos);
  EXPECT_NE(r.out.find("output tokens/s/GPU"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  const auto csv = read_file(dir / "requests.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 81);  // header + 80 requests
  EXPECT_NE(read_file(dir / "summary.json").find("\"output_tokens_per_gpu_s\""), std::string::npos);
  fs::remove_all(dir);
}

TEST(Cli, SameSeedGivesIdenticalSummaryBytes) {
  const auto a = cli_dir("seed_a"), b = cli_dir("seed_b"), c = cli_dir("seed_c");
  ASSERT_EQ(run("run -q " + kDefaultScenario + " " + kSmall + " -o " + a.string()).exit_code, 0);
  ASSERT_EQ(run("run -q " + kDefaultScenario + " " + kSmall + " -o " + b.string()).exit_code, 0);
  ASSERT_EQ(run("run -q " + kDefaultScenario + " " + kSmall + " --seed 99 -o " + c.string()).exit_code, 0);
  const auto sa = read_file(a / "summary.json");
  EXPECT_FALSE(sa.empty());
  EXPECT_EQ(sa, read_file(b / "summary.json"));
  EXPECT_NE(sa, read_file(c / "summary.json"));
  for (const auto& d : {a, b, c}) fs::remove_all(d);
}

TEST(Cli, MisspelledKeyExitsTwoWithPositionAndSuggestion) {
  const auto dir = cli_dir("typo");
  const auto path = dir / "typo.yaml";
  std::ofstream(path) << "name: t\nmodel: deepseek-v3\nhardware: h800\ncluster: {nodes: 4}\n"
                         "deployment:\n  colocated:\n    ranks: 32\n    moe: {epp: 32}\n";
  const auto r = run("run " + path.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + path.string() +
                       ":8:11: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?\n");
  fs::remove_all(dir);
}

TEST(Cli, BadOverrideNamesTheFlag) {
  const auto r = run("run " + kDefaultScenario + " --set workload.requests=abc");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: --set workload.requests=abc: workload.requests: expected an integer, got 'abc'\n");
}

TEST(Cli, OutOfMemoryDeploymentExitsTwoWithBreakdown) {
  const auto r = run("run " + kDefaultScenario +
                     " --set cluster.nodes=1 --set deployment.colocated.ranks=8 "
                     "--set deployment.colocated.attention.dp=8 --set deployment.colocated.moe.ep=8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.rfind("moesim: deployment: out of memory", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("routed experts"), std::string::npos);
}

TEST(Cli, UnknownFlagAndMissingFileExitTwo) {
  const auto a = run("run " + kDefaultScenario + " --frobnicate");
  EXPECT_EQ(a.exit_code, 2);
  EXPECT_EQ(std::count(a.out.begin(), a.out.end(), '\n'), 1) << a.out;
  const auto b = run("run /nonexistent/scenario.yaml");
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_EQ(b.out, "moesim: cannot open scenario file '/nonexistent/scenario.yaml'\n");
}

TEST(Cli, ListShowsEveryRegistry) {
  const auto r = run("list");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s : {"models:", "deepseek-v3", "hardware:", "h800", "cluster presets:", "hgx",
                        "cost models:", "roofline", "routing models:", "uniform", "arrival processes:", "poisson"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

TEST(Cli, VersionAndHelp) {
  const auto v = run("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("moesim ", 0), 0u);
  const auto h = run("run --help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--set"), std::string::npos);
}

}  // namespace
