// Input limits (docs/robustness.md): absurd sizes and non-finite values in a scenario are refused
// at load, with the key's position, before anything is allocated for them.
#include <gtest/gtest.h>

#include <string>

#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::load_error;

std::string with_nodes(const std::string& nodes) {
  std::string s(kMinimal);
  s.replace(s.find("{nodes: 1}"), 10, "{nodes: " + nodes + "}");
  return s;
}

TEST(ScenarioLimits, AMillionRanksAreRefused) {
  EXPECT_EQ(load_error(with_nodes("1000000")),
            "scn.yaml:3:18: cluster.nodes: 1000000 nodes of 8 devices are 8000000, above the limit of 131072 devices");
  EXPECT_EQ(load_error(with_nodes("2, devices_per_node: 100000")),
            "scn.yaml:3:18: cluster.nodes: 2 nodes of 100000 devices are 200000, above the limit of 131072 devices");
}

TEST(ScenarioLimits, ATrillionRequestsAreRefused) {
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {requests: 1000000000000}\n"),
            "scn.yaml:7:22: workload.requests: expected an integer in [1, 100000000], got 1000000000000");
}

TEST(ScenarioLimits, ABillionTokenPromptIsRefused) {
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {input_tokens: {dist: fixed, value: 1000000000}}\n"),
            "scn.yaml:7:47: workload.input_tokens.value: expected an integer in [1, 33554432], got 1000000000");
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {output_tokens: {dist: normal, mean: 1e9}}\n"),
            "scn.yaml:7:48: workload.output_tokens.mean: expected a number in [1, 33554432], got 1e9");
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {input_tokens: {dist: uniform, max: 99999999999}}\n"),
            "scn.yaml:7:47: workload.input_tokens.max: expected an integer in [0, 33554432], got 99999999999");
}

TEST(ScenarioLimits, NegativeAndNanValuesAreRefused) {
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {requests: -5}\n"),
            "scn.yaml:7:22: workload.requests: expected an integer in [1, 100000000], got -5");
  EXPECT_EQ(load_error(std::string(kMinimal) + "workload: {output_tokens: {dist: normal, mean: .nan}}\n"),
            "scn.yaml:7:48: workload.output_tokens.mean: expected a number, got '.nan'");
  EXPECT_EQ(load_error(with_nodes("1, oversubscription: .nan")),
            "scn.yaml:3:39: cluster.oversubscription: expected a number, got '.nan'");
}

}  // namespace
}  // namespace moesim::scenarios
