// Pools on hardware of their own (PoolConfig::hardware): prefill on H800 nodes, decode on H20
// nodes. Each pool's memory plan, cost model, power and links are its hardware's; energy and cost
// add up over the kinds of device.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <string>

#include "scenarios/loader.h"
#include "sim/deployment.h"
#include "sim/simulation.h"
#include "topology/cluster.h"

namespace moesim::sim {
namespace {

// Qwen3-30B-A3B disaggregated over two HGX nodes: an 8-GPU prefill instance on node 0, an 8-GPU
// decode instance on node 1, each pool on the hardware given.
std::string pd_yaml(const std::string& prefill_hw, const std::string& decode_hw, const std::string& pricing = "") {
  return "model: qwen3-30b-a3b\n"
         "hardware: h800\n"
         "cluster: {preset: hgx, nodes: 2}\n"
         "deployment:\n"
         "  prefill: {ranks: 8, hardware: " +
         prefill_hw +
         ", batch: {max_running_per_rank: 8, token_budget_per_rank: 8192}}\n"
         "  decode: {ranks: 8, hardware: " +
         decode_hw +
         ", batch: {max_running_per_rank: 64, token_budget_per_rank: 512}}\n"
         "workload:\n"
         "  requests: 400\n"
         "  arrivals: {process: poisson, rate: 40/s}\n"
         "  input_tokens: {dist: fixed, value: 2000}\n"
         "  output_tokens: {dist: fixed, value: 100}\n" +
         pricing;
}

SimulationResult run(const scenarios::Scenario& s) {
  SimulationConfig c = scenarios::simulation_config(s);
  return simulate(c);
}

std::string pools_error(const std::string& yaml) {
  return moesim::testing::thrown_message<std::exception>([&] { scenarios::load_scenario_string(yaml, "h.yaml"); });
}

TEST(HeterogeneousPools, NodeGroupsGiveTheirNodesTheirOwnPorts) {
  topology::ClusterConfig c = topology::cluster_preset_defaults("hgx");
  c.nodes = 3;
  c.node_groups.push_back({1, 2, 450e9, 25e9});
  const topology::Cluster cluster(c);
  for (int d = 0; d < cluster.num_devices(); ++d) {
    const auto& links = cluster.device_links(d);
    const bool group = cluster.node_of(d) >= 1;
    EXPECT_DOUBLE_EQ(cluster.link_props(links.scaleup_out).bytes_per_s, group ? 450e9 : c.scaleup_bytes_per_s);
    EXPECT_DOUBLE_EQ(cluster.link_props(links.nic_out).bytes_per_s, group ? 25e9 : c.nic_bytes_per_s);
    EXPECT_DOUBLE_EQ(cluster.effective_nic_bytes_per_s(d), (group ? 25e9 : c.nic_bytes_per_s) * c.nic_efficiency);
  }
  // A rail leaf's up-links carry the line rate of the NICs under it: one of each node's.
  const int rails = static_cast<int>(cluster.leaves().size());
  ASSERT_GT(rails, 1);
  double up = 0;
  for (int id : cluster.leaves().front().up) up += cluster.link_props(id).bytes_per_s;
  EXPECT_DOUBLE_EQ(up, (c.nic_bytes_per_s + 2 * 25e9) / c.oversubscription);
  // Overlapping or outlying groups are refused.
  c.node_groups.push_back({2, 1, 450e9, 25e9});
  EXPECT_THROW(topology::Cluster{c}, topology::TopologyError);
  c.node_groups = {{2, 2, 450e9, 25e9}};
  EXPECT_THROW(topology::Cluster{c}, topology::TopologyError);
}

TEST(HeterogeneousPools, EachPoolRunsOnItsHardwareAndEnergyAndCostAddUp) {
  const scenarios::Scenario s = scenarios::load_scenario_string(
      pd_yaml("h800", "h20", "pricing: {gpu_hour_usd: {h800: 2.0, h20: 1.25}}\n"), "h.yaml");
  ASSERT_TRUE(s.deployment.decode.hardware);
  EXPECT_EQ(s.deployment.decode.hardware->name, "h20");
  EXPECT_FALSE(s.deployment.prefill.hardware);  // the scenario's own
  // The decode node's links are the H20's ports (NVLink 450 GB/s per direction).
  ASSERT_EQ(s.cluster.node_groups.size(), 1u);
  EXPECT_EQ(s.cluster.node_groups[0].first_node, 1);
  EXPECT_EQ(s.cluster.node_groups[0].nodes, 1);
  EXPECT_DOUBLE_EQ(s.cluster.node_groups[0].scaleup_bytes_per_s, 450e9);

  const SimulationResult r = run(s);
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_EQ(r.summary.completed, 400);
  EXPECT_EQ(r.pools[0].hardware, "h800");
  EXPECT_EQ(r.pools[1].hardware, "h20");
  // Each memory plan holds its own HBM: 80 GB on H800, 96 GB on H20.
  EXPECT_DOUBLE_EQ(r.pools[0].memory.capacity_bytes, s.hardware.hbm_bytes);
  EXPECT_DOUBLE_EQ(r.pools[1].memory.capacity_bytes, s.deployment.decode.hardware->hbm_bytes);
  EXPECT_GT(r.pools[1].memory.kv_capacity_tokens, r.pools[0].memory.kv_capacity_tokens);

  // Energy: each pool's is the integral of its steps' power over its GPUs plus its own idle
  // power for the rest of the run; the run's is their sum.
  const double idle[2] = {s.hardware.idle_power_w, s.deployment.decode.hardware->idle_power_w};
  const double board[2] = {s.hardware.board_power_w, s.deployment.decode.hardware->board_power_w};
  double busy[2] = {0, 0}, busy_s[2] = {0, 0};
  for (const StepRecord& st : r.steps) {
    const auto p = static_cast<std::size_t>(st.pool);
    EXPECT_GE(st.power_w, idle[p]);
    EXPECT_LE(st.power_w, board[p]);
    busy[p] += st.power_w * static_cast<double>(st.duration_ns) * 1e-9 * 8;
    busy_s[p] += static_cast<double>(st.duration_ns) * 1e-9 * 8;
  }
  const double gpu_s = 8 * r.summary.makespan_s;
  for (std::size_t p = 0; p < 2; ++p) {
    ASSERT_TRUE(r.pools[p].energy.known);
    EXPECT_NEAR(r.pools[p].energy.joules, busy[p] + idle[p] * (gpu_s - busy_s[p]), 1e-6 * r.pools[p].energy.joules);
  }
  ASSERT_TRUE(r.summary.energy.known);
  EXPECT_DOUBLE_EQ(r.summary.energy.joules, r.pools[0].energy.joules + r.pools[1].energy.joules);
  EXPECT_NEAR(r.summary.energy.mean_power_w_per_gpu, r.summary.energy.joules / (2 * gpu_s), 1e-9);

  // Cost: each kind of GPU's hours at its own price.
  ASSERT_TRUE(r.summary.cost.priced);
  const double hours = 8 * r.summary.makespan_s / 3600;
  EXPECT_DOUBLE_EQ(r.summary.cost.gpu_hours, 2 * hours);
  EXPECT_NEAR(r.summary.cost.usd, hours * 2.0 + hours * 1.25, 1e-12);
  EXPECT_NEAR(r.pools[0].cost.usd, hours * 2.0, 1e-12);
  EXPECT_NEAR(r.pools[1].cost.usd, hours * 1.25, 1e-12);
}

// The H20 has a sixth of the H800's dense tensor rate (148 against 989 TFLOPS BF16) and more
// HBM bandwidth (4.0 against 3.35 TB/s): prompts take several times longer on it; decode steps,
// mostly weight and cache reads, slow down far less (its 78 SMs, against 132, reach less of
// that bandwidth in small kernels).
TEST(HeterogeneousPools, PromptsSlowDownOnAComputePoorPoolAndDecodeDoesNot) {
  const SimulationResult h800 = run(scenarios::load_scenario_string(pd_yaml("h800", "h800"), "h.yaml"));
  const SimulationResult h20_decode = run(scenarios::load_scenario_string(pd_yaml("h800", "h20"), "h.yaml"));
  const SimulationResult h20_prefill = run(scenarios::load_scenario_string(pd_yaml("h20", "h800"), "h.yaml"));
  const double prefill_slowdown = h20_prefill.pools[0].mean_step_ms / h800.pools[0].mean_step_ms;
  const double decode_slowdown = h20_decode.pools[1].steady_step_ms / h800.pools[1].steady_step_ms;
  EXPECT_GT(prefill_slowdown, 3);
  EXPECT_GT(h20_prefill.summary.ttft.mean_s, 2 * h800.summary.ttft.mean_s);
  EXPECT_LT(decode_slowdown, 1.5);
  EXPECT_LT(decode_slowdown, prefill_slowdown / 2);
  // The prefill pool itself is untouched by where decode runs.
  EXPECT_DOUBLE_EQ(h20_decode.pools[0].memory.capacity_bytes, h800.pools[0].memory.capacity_bytes);
}

TEST(HeterogeneousPools, TheLoaderChecksWherePoolHardwareAndPricesAreWritten) {
  const std::string head = "model: qwen3-30b-a3b\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\ndeployment:\n";
  EXPECT_EQ(pools_error(head + "  prefill: {ranks: 4}\n  decode: {ranks: 4, hardware: h20}\n"),
            "h.yaml:6:32: deployment.decode.hardware: node 0 would hold both h800 (prefill pool) and h20 (decode "
            "pool) devices: a scale-up domain holds one kind of device, so the prefill pool's 4 devices must fill "
            "whole nodes of 8");
  EXPECT_EQ(pools_error(head + "  colocated: {ranks: 8, hardware: h21}\n").substr(0, 87),
            "h.yaml:5:35: deployment.colocated.hardware: unknown hardware 'h21'; did you mean 'h20'?");
  const std::string two =
      "model: qwen3-30b-a3b\nhardware: h800\ncluster: {preset: hgx, nodes: 2}\n"
      "deployment:\n  prefill: {ranks: 8}\n  decode: {ranks: 8, hardware: h20}\n";
  EXPECT_EQ(pools_error(two + "pricing: {gpu_hour_usd: {h800: 2}}\n"),
            "h.yaml:7:25: pricing.gpu_hour_usd: no price for hardware 'h20', which the deployment runs on");
  EXPECT_EQ(pools_error(two + "pricing: {gpu_hour_usd: {h800: 2, h20: 1, h10: 3}}\n"),
            "h.yaml:7:43: pricing.gpu_hour_usd.h10: unknown key 'h10'; did you mean 'h100'?");
  // A preset the deployment does not run on may have a price too (for what-if overrides).
  EXPECT_EQ(pools_error(two + "pricing: {gpu_hour_usd: {h800: 2, h20: 1, h100: 3}}\n"), "(no error)");
  EXPECT_EQ(pools_error(two + "pricing: {gpu_hour_usd: {h800: 2, h20: 0}}\n"),
            "h.yaml:7:40: pricing.gpu_hour_usd.h20: expected a price above 0, got '0'");
  // One price for every kind of device stays a number.
  const auto s = scenarios::load_scenario_string(two + "pricing: {gpu_hour_usd: 2}\n", "h.yaml");
  EXPECT_DOUBLE_EQ(s.pricing.gpu_hour_usd_of("h20"), 2.0);
  // The same hardware as the scenario's is no pool hardware of its own.
  const auto same = scenarios::load_scenario_string(head + "  colocated: {ranks: 8, hardware: h800}\n", "h.yaml");
  EXPECT_FALSE(same.deployment.colocated.hardware);
  EXPECT_TRUE(same.cluster.node_groups.empty());
}

}  // namespace
}  // namespace moesim::sim
