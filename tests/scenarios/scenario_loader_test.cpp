#include "scenarios/loader.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;

constexpr std::string_view kFull = R"(# every key given
name: dsv3-decode
seed: 7
model: deepseek-v3
hardware: h800
cluster:
  preset: hgx
  nodes: 4
  devices_per_node: 8
  nic: 400Gbps
  scaleup: 1.5TB/s
  scaleup_efficiency: 0.8
  nic_efficiency: 0.9
  scaleup_latency: 2us
  nic_latency: 1.5ms
deployment:
  colocated:
    ranks: 32
    attention: {dp: 32, tp: 1}
    moe: {ep: 32}
    batch: {max_running_per_rank: 128, token_budget_per_rank: 256}
routing: {model: uniform}
workload:
  requests: 20000
  arrivals: {process: poisson, rate: 2/ms}
  input_tokens: {dist: fixed, value: 2000}
  output_tokens: {dist: fixed, value: 1000}
slo: {ttft_p90: 2s, tpot_p90: 50ms}
outputs: {requests_csv: false}
)";

TEST(ScenarioLoader, FullScenarioGivesTypedValues) {
  const Scenario s = load_scenario_string(kFull, "dir/full.yaml");
  EXPECT_EQ(s.name, "dsv3-decode");
  EXPECT_EQ(s.source_file, "dir/full.yaml");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.model.name, "deepseek-v3");
  EXPECT_EQ(s.model.routed_experts, 256);
  EXPECT_EQ(s.hardware.name, "h800");
  EXPECT_EQ(s.cluster.preset, "hgx");
  EXPECT_EQ(s.cluster.nodes, 4);
  EXPECT_EQ(s.cluster.devices_per_node, 8);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, 50e9);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, 1.5e12);
  EXPECT_EQ(s.cluster.scaleup_efficiency, 0.8);
  EXPECT_EQ(s.cluster.nic_efficiency, 0.9);
  EXPECT_EQ(s.cluster.scaleup_latency_ns, 2000.0);
  EXPECT_EQ(s.cluster.nic_latency_ns, 1.5e6);
  const sim::PoolConfig& p = s.deployment.colocated;
  EXPECT_EQ(p.ranks, 32);
  EXPECT_EQ(p.attention_dp, 32);
  EXPECT_EQ(p.attention_tp, 1);
  EXPECT_EQ(p.moe_ep, 32);
  EXPECT_EQ(p.batch.max_running_per_rank, 128);
  EXPECT_EQ(p.batch.token_budget_per_rank, 256);
  EXPECT_EQ(s.routing.model, workloads::RoutingModelKind::kUniform);
  EXPECT_EQ(s.workload.requests, 20000);
  EXPECT_EQ(s.workload.arrivals.process, workloads::ArrivalProcess::kPoisson);
  EXPECT_EQ(s.workload.arrivals.rate_per_s, 2000.0);
  EXPECT_EQ(s.workload.input_tokens.dist, workloads::LengthDist::kFixed);
  EXPECT_EQ(s.workload.input_tokens.value, 2000);
  EXPECT_EQ(s.workload.output_tokens.value, 1000);
  EXPECT_EQ(s.slo.ttft_p90_s, 2.0);
  EXPECT_EQ(s.slo.tpot_p90_s, 0.05);
  EXPECT_FALSE(s.outputs.requests_csv);
}

TEST(ScenarioLoader, DefaultsComeFromHardwareAndConfigStructs) {
  const Scenario s = load_scenario_string(kMinimal, "some/dir/my-run.yaml");
  EXPECT_EQ(s.name, "my-run");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.model.name, "tiny-moe");
  EXPECT_EQ(s.cluster.preset, "hgx");
  EXPECT_EQ(s.cluster.devices_per_node, 8);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, s.hardware.nic_bytes_per_s);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, s.hardware.scaleup_bytes_per_s);
  const topology::ClusterConfig defaults;
  EXPECT_EQ(s.cluster.scaleup_efficiency, defaults.scaleup_efficiency);
  EXPECT_EQ(s.cluster.nic_latency_ns, defaults.nic_latency_ns);
  EXPECT_EQ(s.deployment.colocated.attention_dp, 8);
  EXPECT_EQ(s.deployment.colocated.attention_tp, 1);
  EXPECT_EQ(s.deployment.colocated.moe_ep, 8);
  EXPECT_EQ(s.deployment.colocated.batch.max_running_per_rank, 64);
  EXPECT_EQ(s.deployment.colocated.batch.token_budget_per_rank, 4096);
  EXPECT_EQ(s.routing.model, workloads::RoutingModelKind::kUniform);
  EXPECT_EQ(s.workload.requests, 100);
  EXPECT_EQ(s.workload.arrivals.process, workloads::ArrivalProcess::kPoisson);
  EXPECT_EQ(s.workload.input_tokens.value, 1000);
  EXPECT_EQ(s.workload.output_tokens.value, 100);
  EXPECT_EQ(s.slo.ttft_p90_s, 0.0);
  EXPECT_TRUE(s.outputs.requests_csv);
}

TEST(ScenarioLoader, EmptySectionsReadAsDefaults) {
  const std::string yaml = std::string(kMinimal) + "workload:\nslo:\noutputs: {}\n";
  EXPECT_EQ(load_scenario_string(yaml, "scn.yaml").workload.requests, 100);
}

TEST(ScenarioLoader, RatesMustBePositive) {
  const std::string yaml = std::string(kMinimal) + "workload: {arrivals: {rate: 0/s}}\n";
  EXPECT_EQ(testing::load_error(yaml), "scn.yaml:7:29: workload.arrivals.rate: expected a rate > 0, got '0/s'");
}

TEST(ScenarioLoader, SeedIsUnsigned) {
  const std::string big = std::string(kMinimal) + "seed: 18446744073709551615\n";
  EXPECT_EQ(load_scenario_string(big, "scn.yaml").seed, 18446744073709551615u);
  EXPECT_EQ(testing::load_error(std::string(kMinimal) + "seed: -1\n"),
            "scn.yaml:7:7: seed: expected an unsigned integer, got '-1'");
}

TEST(ScenarioLoader, LibraryScenariosLoad) {
  const std::filesystem::path dir = std::filesystem::path(MOESIM_SOURCE_DIR) / "scenarios" / "library";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(load_scenario_file(entry.path().string())) << entry.path();
    ++loaded;
  }
  EXPECT_GT(loaded, 0);
}

}  // namespace
}  // namespace moesim::scenarios

namespace moesim::scenarios {
namespace {

TEST(ScenarioLoader, OverlapSchemeAndCommSmShare) {
  const auto s = load_scenario_string(
      std::string(testing::kMinimal) + "    overlap: {scheme: two-batch, comm_sm_share: 0.18}\n", "scn.yaml");
  EXPECT_EQ(s.deployment.colocated.overlap.scheme, sim::OverlapScheme::kTwoBatch);
  EXPECT_DOUBLE_EQ(s.deployment.colocated.overlap.comm_sm_share, 0.18);
  const auto d = load_scenario_string(testing::kMinimal, "scn.yaml");
  EXPECT_EQ(d.deployment.colocated.overlap.scheme, sim::OverlapScheme::kNone);
  EXPECT_EQ(testing::load_error(std::string(testing::kMinimal) + "    overlap: {scheme: two-batches}\n"),
            "scn.yaml:7:23: deployment.colocated.overlap.scheme: unknown overlap scheme 'two-batches'; did you "
            "mean 'two-batch'? (valid: none, shared-expert, two-batch)");
  EXPECT_EQ(testing::load_error(std::string(testing::kMinimal) + "    overlap: {comm_sm_share: 1}\n"),
            "scn.yaml:7:30: deployment.colocated.overlap.comm_sm_share: expected a fraction in [0, 1), got '1'");
}

}  // namespace
}  // namespace moesim::scenarios

namespace moesim::scenarios {
namespace {

constexpr std::string_view kDisaggregated =
    "model: deepseek-v3\n"
    "hardware: h800\n"
    "cluster: {nodes: 8}\n"
    "deployment:\n"
    "  prefill: {ranks: 16, instances: 2}\n"
    "  decode: {ranks: 32, batch: {max_running_per_rank: 128, kv_block_tokens: 32}}\n";

TEST(ScenarioLoader, DisaggregatedPoolsWithInstances) {
  const auto s = load_scenario_string(kDisaggregated, "scn.yaml");
  EXPECT_TRUE(s.deployment.disaggregated);
  EXPECT_EQ(s.deployment.prefill.role, sim::PoolRole::kPrefill);
  EXPECT_EQ(s.deployment.prefill.instances, 2);
  EXPECT_EQ(s.deployment.prefill.ranks, 16);
  EXPECT_EQ(s.deployment.decode.role, sim::PoolRole::kDecode);
  EXPECT_EQ(s.deployment.decode.moe_ep, 32);
  EXPECT_EQ(s.deployment.decode.batch.max_running_per_rank, 128);
  EXPECT_EQ(s.deployment.decode.batch.kv_block_tokens, 32);
  ASSERT_EQ(s.deployment.pools().size(), 2u);
}

TEST(ScenarioLoader, DeploymentNeedsColocatedOrBothPools) {
  EXPECT_EQ(testing::load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1}\n"
                                "deployment:\n  prefill: {ranks: 8}\n"),
            "scn.yaml:5:3: deployment: give either 'colocated', or both 'prefill' and 'decode' (disaggregated)");
  EXPECT_EQ(testing::load_error("model: deepseek-v3\nhardware: h800\ncluster: {nodes: 4}\n"
                                "deployment:\n  prefill: {ranks: 16}\n  decode: {ranks: 32}\n"),
            "scn.yaml:5:3: deployment: the prefill and decode pools need 48 devices; the cluster has 32 devices (4 "
            "nodes x 8)");
}

}  // namespace
}  // namespace moesim::scenarios
