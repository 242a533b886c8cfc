// --set overrides: applied before validation, errors naming the flag.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::load_error;

TEST(ScenarioOverrides, ScalarsMapsAndNewSections) {
  const Scenario s =
      load_scenario_string(kMinimal, "scn.yaml",
                           {"workload.requests=500", "cluster={preset: hgx, nodes: 2}", "deployment.colocated.ranks=16",
                            "slo.tpot_p90=50ms", "workload.arrivals.rate = 400/s", "name=run-2"});
  EXPECT_EQ(s.workload.requests, 500);
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.deployment.colocated.ranks, 16);
  EXPECT_EQ(s.deployment.colocated.moe_ep, 16);
  EXPECT_EQ(s.slo.tpot_p90_s, 0.05);
  EXPECT_EQ(s.workload.arrivals.rate_per_s, 400.0);
  EXPECT_EQ(s.name, "run-2");
}

TEST(ScenarioOverrides, LaterFlagsWin) {
  const Scenario s = load_scenario_string(kMinimal, "scn.yaml", {"seed=3", "seed=4"});
  EXPECT_EQ(s.seed, 4u);
}

TEST(ScenarioOverrides, CanSupplyRequiredKeys) {
  const Scenario s = load_scenario_string("model: tiny-moe\nhardware: h800\n", "scn.yaml",
                                          {"cluster.nodes=1", "deployment.colocated.ranks=8"});
  EXPECT_EQ(s.deployment.colocated.ranks, 8);
}

TEST(ScenarioOverrides, ValidationErrorNamesTheFlag) {
  EXPECT_EQ(load_error(kMinimal, {"deployment.colocated.ranks=abc"}),
            "--set deployment.colocated.ranks=abc: deployment.colocated.ranks: expected an integer, got 'abc'");
  EXPECT_EQ(load_error(kMinimal, {"cluster.nodez=2"}),
            "--set cluster.nodez=2: cluster.nodez: unknown key 'nodez'; did you mean 'nodes'?");
  EXPECT_EQ(load_error(kMinimal, {"deployment.colocated.ranks=64"}),
            "--set deployment.colocated.ranks=64: deployment.colocated.ranks: 64 ranks do not fit on a cluster of "
            "8 devices (1 node x 8)");
  EXPECT_EQ(load_error(kMinimal, {"cluster={nodes: 1, nodes: 2}"}),
            "--set cluster={nodes: 1, nodes: 2}: cluster.nodes: duplicate key 'nodes'");
  EXPECT_EQ(load_error(kMinimal, {"cluster={nodes: 1"}),
            "--set cluster={nodes: 1: YAML syntax error: end of map flow not found");
}

TEST(ScenarioOverrides, ErrorsInTheFileKeepFilePositions) {
  EXPECT_EQ(load_error(std::string(kMinimal) + "slo: {ttft_p90: 2}\n", {"workload.requests=5"}),
            "scn.yaml:7:17: slo.ttft_p90: expected a duration with a unit (ns, us, ms, s, min, h), got '2'");
}

TEST(ScenarioOverrides, MalformedFlag) {
  EXPECT_EQ(load_error(kMinimal, {"workload.requests"}),
            "--set workload.requests: malformed override: expected path=value");
  EXPECT_EQ(load_error(kMinimal, {"=5"}), "--set =5: malformed override: empty path before '='");
  EXPECT_EQ(load_error(kMinimal, {"workload..requests=5"}),
            "--set workload..requests=5: malformed override: empty key in 'workload..requests'");
  EXPECT_EQ(load_error(kMinimal, {"model.name=x"}), "--set model.name=x: model: expected a map, got 'tiny-moe'");
}

TEST(ScenarioFile, LoadsFromDiskWithOverrides) {
  const auto path = std::filesystem::temp_directory_path() / "moesim_scenario_file_test.yaml";
  {
    std::ofstream out(path);
    out << kMinimal;
  }
  const Scenario s = load_scenario_file(path.string(), {"seed=9"});
  std::filesystem::remove(path);
  EXPECT_EQ(s.name, "moesim_scenario_file_test");
  EXPECT_EQ(s.source_file, path.string());
  EXPECT_EQ(s.seed, 9u);
}

TEST(ScenarioFile, ErrorsNameTheFile) {
  const auto path = std::filesystem::temp_directory_path() / "moesim_scenario_file_error_test.yaml";
  {
    std::ofstream out(path);
    out << "model: tiny-moe\nhardware: h8000\n";
  }
  std::string message;
  try {
    load_scenario_file(path.string());
  } catch (const ScenarioError& e) {
    message = e.what();
  }
  std::filesystem::remove(path);
  EXPECT_TRUE(message.starts_with(path.string() + ":2:11: hardware: unknown hardware 'h8000'; did you mean 'h800'?"))
      << message;
}

TEST(ScenarioFile, DirectoryIsNotAFile) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  try {
    load_scenario_file(dir);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open scenario file '" + dir + "'");
  }
}

}  // namespace
}  // namespace moesim::scenarios
