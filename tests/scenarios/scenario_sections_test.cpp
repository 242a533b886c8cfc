// The cluster, placement/comm, routing and workload keys parse into the exact typed values.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "tests/scenarios/scenario_test_support.h"
#include "topology/all_to_all_algorithm.h"
#include "topology/cluster.h"

namespace moesim::scenarios {
namespace {

// DeepSeek-V3 decode on 18 HGX nodes, DeepSeek-style EP144 with 32 redundant experts.
constexpr std::string_view kDeepSeekDecode = R"(
model: deepseek-v3
hardware: h800
cluster: {preset: hgx, nodes: 18, nic: 400Gbps, rails: 0, spines: 8, oversubscription: 2,
          nic_messages_per_s: 200e6}
deployment:
  colocated:
    ranks: 144
    moe: {ep: 144, redundant_experts: 32, placement: eplb, replica_split: local,
          rebalance_interval: 10min, comm: low-latency, fidelity: flow}
routing: {model: group-limited, base: zipf, s: 0.9, group_limit: {groups: 8}}
workload:
  requests: 20000
  arrivals: {process: gamma, rate: 400/s, cv: 2.5}
  input_tokens: {dist: lognormal, mean: 2000, sigma: 0.5, max: 16000}
  output_tokens: {dist: uniform, min: 100, max: 900}
  prefix_hit: {dist: beta, mean: 0.3, concentration: 20}
)";

TEST(ScenarioSections, DeepSeekDecodeGivesTypedValues) {
  const Scenario s = load_scenario_string(kDeepSeekDecode, "scn.yaml");
  EXPECT_EQ(s.cluster.rails, 0);
  EXPECT_EQ(s.cluster.spines, 8);
  EXPECT_EQ(s.cluster.oversubscription, 2.0);
  EXPECT_EQ(s.cluster.nic_messages_per_s, 200e6);
  EXPECT_EQ(s.cluster.devices_per_board, 0);

  const sim::PoolConfig& p = s.deployment.colocated;
  EXPECT_EQ(p.moe_ep, 144);
  EXPECT_EQ(p.placement.policy, sim::PlacementPolicy::kEplb);
  EXPECT_EQ(p.placement.redundant, 32);
  EXPECT_EQ(p.placement.replica_split, sim::ReplicaSplit::kLocal);
  EXPECT_EQ(p.placement.rebalance_interval_s, 600.0);
  EXPECT_EQ(p.comm.all_to_all, &topology::low_latency_all_to_all());
  EXPECT_EQ(p.comm.fidelity, &topology::flow_fidelity());

  EXPECT_EQ(s.routing.model, workloads::RoutingModelKind::kGroupLimited);
  EXPECT_EQ(s.routing.base, workloads::RoutingModelKind::kZipf);
  EXPECT_EQ(s.routing.s, 0.9);
  EXPECT_TRUE(s.routing.group_limit.enabled);
  EXPECT_EQ(s.routing.group_limit.groups, 8);
  EXPECT_EQ(s.routing.group_limit.top_groups, 4);  // the model's top_groups

  const workloads::WorkloadConfig& w = s.workload;
  EXPECT_EQ(w.arrivals.process, workloads::ArrivalProcess::kGamma);
  EXPECT_EQ(w.arrivals.rate_per_s, 400.0);
  EXPECT_EQ(w.arrivals.cv, 2.5);
  EXPECT_EQ(w.input_tokens.dist, workloads::LengthDist::kLognormal);
  EXPECT_EQ(w.input_tokens.mean, 2000.0);
  EXPECT_EQ(w.input_tokens.sigma, 0.5);
  EXPECT_EQ(w.input_tokens.max, 16000);
  EXPECT_EQ(w.output_tokens.dist, workloads::LengthDist::kUniform);
  EXPECT_EQ(w.output_tokens.min, 100);
  EXPECT_EQ(w.output_tokens.max, 900);
  EXPECT_EQ(w.prefix_hit.dist, workloads::PrefixHitDist::kBeta);
  EXPECT_EQ(w.prefix_hit.mean, 0.3);
  EXPECT_EQ(w.prefix_hit.concentration, 20.0);
}

// moe.comm resolves once to the typed value: the all-to-all algorithm of that name, or none for
// AllGather + ReduceScatter.
TEST(ScenarioSections, MoeCommNamesResolveToTheirAlgorithm) {
  for (const char* name : {"direct", "hierarchical", "low-latency"}) {
    const Scenario s =
        load_scenario_string(testing::kMinimal, "scn.yaml", {std::string("deployment.colocated.moe.comm=") + name});
    ASSERT_NE(s.deployment.colocated.comm.all_to_all, nullptr) << name;
    EXPECT_EQ(s.deployment.colocated.comm.all_to_all->name(), name);
    EXPECT_EQ(s.deployment.colocated.comm.all_to_all, &topology::find_all_to_all(name));
  }
  const Scenario s =
      load_scenario_string(testing::kMinimal, "scn.yaml", {"deployment.colocated.moe.comm=allgather-reducescatter"});
  EXPECT_TRUE(s.deployment.colocated.comm.gather_scatter());
}

TEST(ScenarioSections, DefaultsAreTheConfigStructs) {
  const Scenario s = load_scenario_string(testing::kMinimal, "scn.yaml");
  const sim::PoolConfig& p = s.deployment.colocated;
  EXPECT_EQ(p.placement.policy, sim::PlacementPolicy::kContiguous);
  EXPECT_EQ(p.placement.redundant, 0);
  EXPECT_EQ(p.placement.replica_split, sim::ReplicaSplit::kEven);
  EXPECT_EQ(p.placement.rebalance_interval_s, 0.0);
  EXPECT_EQ(p.comm.all_to_all, &topology::direct_all_to_all());
  EXPECT_EQ(p.comm.fidelity, &topology::analytic_fidelity());
  EXPECT_EQ(s.cluster.rails, 8);  // the hgx preset: rail-optimised
  EXPECT_EQ(s.cluster.spines, 4);
  EXPECT_FALSE(s.routing.group_limit.enabled);
  EXPECT_EQ(s.routing.group_limit.groups, 0);
  EXPECT_EQ(s.routing.hot_experts, 8);
  EXPECT_EQ(s.routing.reuse_draws, 0);
  EXPECT_FALSE(s.routing.share_draws);
  EXPECT_EQ(s.workload.arrivals.cv, 1.0);
  EXPECT_EQ(s.workload.prefix_hit.dist, workloads::PrefixHitDist::kFixed);
  EXPECT_EQ(s.workload.prefix_hit.value, 0.0);
  EXPECT_EQ(s.workload.prefix_hit.block_tokens, 512);
}

TEST(ScenarioSections, ClosedLoopDriftAndShorthandPrefixHit) {
  const Scenario s = load_scenario_string(std::string(testing::kMinimal) + R"(
routing: {model: dirichlet-drift, alpha: 0.5, drift_rho: 0.9, drift_sigma: 1.5, drift_interval_steps: 20,
          hot_experts: 4, hot_fraction: 0.75, group_limit: {enabled: false, groups: 4, top_groups: 2},
          reuse_draws: 4, share_draws: true}
workload:
  arrivals: {process: closed-loop, concurrency: 64, think_time: 500ms}
  input_tokens: {dist: normal, mean: 1500, stddev: 300}
  output_tokens: {dist: fixed, value: 200}
  prefix_hit: 0.5
)",
                                          "scn.yaml");
  EXPECT_EQ(s.routing.model, workloads::RoutingModelKind::kDirichletDrift);
  EXPECT_EQ(s.routing.alpha, 0.5);
  EXPECT_EQ(s.routing.drift_rho, 0.9);
  EXPECT_EQ(s.routing.drift_sigma, 1.5);
  EXPECT_EQ(s.routing.drift_interval_steps, 20);
  EXPECT_EQ(s.routing.hot_experts, 4);
  EXPECT_EQ(s.routing.hot_fraction, 0.75);
  EXPECT_FALSE(s.routing.group_limit.enabled);
  EXPECT_EQ(s.routing.group_limit.groups, 4);
  EXPECT_EQ(s.routing.group_limit.top_groups, 2);
  EXPECT_EQ(s.routing.reuse_draws, 4);
  EXPECT_TRUE(s.routing.share_draws);
  EXPECT_EQ(s.workload.arrivals.process, workloads::ArrivalProcess::kClosedLoop);
  EXPECT_EQ(s.workload.arrivals.concurrency, 64);
  EXPECT_EQ(s.workload.arrivals.think_time_s, 0.5);
  EXPECT_EQ(s.workload.input_tokens.dist, workloads::LengthDist::kNormal);
  EXPECT_EQ(s.workload.input_tokens.mean, 1500.0);
  EXPECT_EQ(s.workload.input_tokens.stddev, 300.0);
  EXPECT_EQ(s.workload.output_tokens.value, 200);
  EXPECT_EQ(s.workload.prefix_hit.dist, workloads::PrefixHitDist::kFixed);
  EXPECT_EQ(s.workload.prefix_hit.value, 0.5);
}

TEST(ScenarioSections, GroupLimitOnAnyModelDefaultsToTheModelsGroups) {
  const Scenario s = load_scenario_string(
      "model: deepseek-v3\nhardware: h800\ncluster: {nodes: 4}\ndeployment: {colocated: {ranks: 32}}\n"
      "routing: {model: zipf, group_limit: {}}\n",
      "scn.yaml");
  EXPECT_TRUE(s.routing.group_limit.enabled);
  EXPECT_EQ(s.routing.group_limit.groups, 8);
  EXPECT_EQ(s.routing.group_limit.top_groups, 4);
}

TEST(ScenarioSections, Nvl72PresetKeepsItsFabric) {
  // 72 GPUs per NVLink domain; 256 experts + 32 redundant = 288 slots, 4 per GPU.
  const Scenario s = load_scenario_string(
      "model: deepseek-v3\nhardware: gb200\ncluster: {preset: nvl72, nodes: 2}\n"
      "deployment: {colocated: {ranks: 72, instances: 2, moe: {placement: eplb, redundant_experts: 32}}}\n",
      "scn.yaml");
  const topology::ClusterConfig nvl72 = topology::cluster_preset_defaults("nvl72");
  EXPECT_EQ(s.cluster.preset, "nvl72");
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.cluster.devices_per_node, 72);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, 900e9);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, nvl72.scaleup_bytes_per_s);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, nvl72.nic_bytes_per_s);
  EXPECT_EQ(s.cluster.scaleup_efficiency, nvl72.scaleup_efficiency);
  EXPECT_EQ(s.cluster.rails, 4);
  EXPECT_EQ(s.deployment.colocated.placement.redundant, 32);
}

TEST(ScenarioSections, CloudMatrixBoardsAndUserBandwidths) {
  const Scenario s = load_scenario_string(
      "model: deepseek-v3\nhardware: h800\n"
      "cluster: {preset: cloudmatrix384, nodes: 1, scaleup: 300GB/s, devices_per_board: 16}\n"
      "deployment: {colocated: {ranks: 32}}\n",
      "scn.yaml");
  EXPECT_EQ(s.cluster.devices_per_node, 384);
  EXPECT_EQ(s.cluster.devices_per_board, 16);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, 300e9);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, topology::cluster_preset_defaults("cloudmatrix384").nic_bytes_per_s);
}

TEST(ScenarioSections, HgxAndGenericTakeLinkBandwidthsFromTheHardware) {
  const Scenario s = load_scenario_string(
      "model: tiny-moe\nhardware: b200\ncluster: {preset: generic, nodes: 1}\ndeployment: {colocated: {ranks: 8}}\n",
      "scn.yaml");
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, s.hardware.scaleup_bytes_per_s);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, s.hardware.nic_bytes_per_s);
  EXPECT_EQ(s.cluster.rails, 0);  // generic: top-of-rack leaves
}

TEST(ScenarioSections, NewKeysCanBeSetFromTheCommandLine) {
  const Scenario s = load_scenario_string(
      testing::kMinimal, "scn.yaml",
      {"deployment.colocated.moe.placement=eplb", "deployment.colocated.moe.redundant_experts=8",
       "routing.group_limit={groups: 4, top_groups: 2}", "workload.prefix_hit=0.25", "cluster.spines=2"});
  EXPECT_EQ(s.deployment.colocated.placement.redundant, 8);
  EXPECT_TRUE(s.routing.group_limit.enabled);
  EXPECT_EQ(s.routing.group_limit.top_groups, 2);
  EXPECT_EQ(s.workload.prefix_hit.value, 0.25);
  EXPECT_EQ(s.cluster.spines, 2);
}

}  // namespace
}  // namespace moesim::scenarios

namespace moesim::scenarios {
namespace {

// The example at the top of docs/scenario-reference.md is a valid scenario.
TEST(ScenarioReference, ExampleLoads) {
  std::ifstream in(std::filesystem::path(MOESIM_SOURCE_DIR) / "docs" / "scenario-reference.md");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto begin = doc.find("```yaml\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  const Scenario s = load_scenario_string(doc.substr(begin + 8, end - begin - 8), "reference.yaml");
  EXPECT_EQ(s.name, "dsv3-decode-ep144");
  EXPECT_EQ(s.deployment.colocated.placement.redundant, 32);
  EXPECT_EQ(s.routing.group_limit.top_groups, 4);
}

}  // namespace
}  // namespace moesim::scenarios
