// `cluster: {file: fabric.yaml}`: a custom fabric named by a scenario, loaded relative to the
// scenario's folder, carried into the simulation, and its errors reported at both positions.
#include <gtest/gtest.h>

#include <string>

#include "scenarios/loader.h"
#include "scenarios/scenario.h"
#include "sim/simulation.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::TempDir;

// Two boxes of two GPUs on a scale-up switch; each box's GPUs share one NIC to a single leaf.
constexpr std::string_view kFabric = R"(name: two-boxes
nodes:
  - {name: gpu0, kind: device, domain: 0}
  - {name: gpu1, kind: device, domain: 0}
  - {name: gpu2, kind: device, domain: 1}
  - {name: gpu3, kind: device, domain: 1}
  - {name: sw0, kind: scaleup_switch}
  - {name: sw1, kind: scaleup_switch}
  - {name: nic0, kind: nic}
  - {name: nic1, kind: nic}
  - {name: tor, kind: leaf}
links:
  - {from: gpu0, to: sw0, bandwidth: 200GB/s, efficiency: 0.7}
  - {from: gpu1, to: sw0, bandwidth: 200GB/s, efficiency: 0.7}
  - {from: gpu2, to: sw1, bandwidth: 200GB/s, efficiency: 0.7}
  - {from: gpu3, to: sw1, bandwidth: 200GB/s, efficiency: 0.7}
  - {from: gpu0, to: nic0, bandwidth: 64GB/s}
  - {from: gpu1, to: nic0, bandwidth: 64GB/s}
  - {from: gpu2, to: nic1, bandwidth: 64GB/s}
  - {from: gpu3, to: nic1, bandwidth: 64GB/s}
  - {from: nic0, to: tor, bandwidth: 400Gbps, latency: 2us, efficiency: 0.9}
  - {from: nic1, to: tor, bandwidth: 400Gbps, latency: 2us, efficiency: 0.9}
)";

std::string scenario(std::string_view cluster, int ranks = 4) {
  return "model: tiny-moe\n"
         "hardware: h800\n"
         "cluster: " +
         std::string(cluster) +
         "\n"
         "deployment:\n"
         "  colocated:\n"
         "    ranks: " +
         std::to_string(ranks) +
         "\n"
         "workload: {requests: 16, output_tokens: {dist: fixed, value: 4}}\n";
}

std::string edited(std::string text, std::string_view from, std::string_view to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(ScenarioFabric, FileRelativeToTheScenarioBecomesTheCluster) {
  TempDir dir;
  dir.write("fabrics/two-boxes.yaml", kFabric);
  const std::string scn = dir.write("run.yaml", scenario("{file: fabrics/two-boxes.yaml}"));
  const Scenario s = load_scenario_file(scn);
  ASSERT_NE(s.fabric, nullptr);
  EXPECT_EQ(s.fabric->num_devices(), 4);
  EXPECT_EQ(s.fabric->num_nodes(), 2);
  EXPECT_FALSE(s.fabric->regular());
  EXPECT_EQ(s.cluster.preset, "custom");
  EXPECT_EQ(s.cluster.nodes, 2);
  EXPECT_EQ(s.cluster.devices_per_node, 2);
  // The fabric's own per-device figures: its slowest device scale-up link and NIC uplink.
  EXPECT_DOUBLE_EQ(s.cluster.scaleup_bytes_per_s, 200e9);
  EXPECT_DOUBLE_EQ(s.cluster.scaleup_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(s.cluster.nic_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(s.cluster.nic_efficiency, 0.9);
  const sim::SimulationConfig c = simulation_config(s);
  EXPECT_EQ(c.fabric, s.fabric);
  const Scenario rate =
      load_scenario_file(dir.write("rate.yaml", scenario("{file: fabrics/two-boxes.yaml, nic_messages_per_s: 100e6}")));
  EXPECT_DOUBLE_EQ(rate.fabric->config().nic_messages_per_s, 100e6);
  EXPECT_DOUBLE_EQ(rate.cluster.nic_messages_per_s, 100e6);
}

TEST(ScenarioFabric, SimulatesAtBothFidelities) {
  TempDir dir;
  dir.write("two-boxes.yaml", kFabric);
  for (const char* fidelity : {"analytic", "flow"})
    for (const char* algo : {"direct", "hierarchical", "low-latency"}) {
      const std::string scn = dir.write("run.yaml", scenario("{file: two-boxes.yaml}"));
      const Scenario s = load_scenario_file(scn, {std::string("deployment.colocated.moe.fidelity=") + fidelity,
                                                  std::string("deployment.colocated.moe.comm=") + algo});
      const sim::SimulationResult r = sim::simulate(simulation_config(s));
      EXPECT_EQ(r.summary.completed, 16) << fidelity << " " << algo;
      ASSERT_EQ(r.pools.size(), 1u);
      // Half of every rank's experts live in the other box: dispatch crosses the shared NICs.
      EXPECT_GT(r.pools[0].phase_ns_per_step[static_cast<int>(sim::Phase::kDispatch)], 0.0) << fidelity << " " << algo;
      EXPECT_GT(r.pools[0].breakdown.dispatch_bytes, 0.0) << fidelity << " " << algo;
    }
}

TEST(ScenarioFabric, ErrorsNameTheScenarioAndTheFabricPositions) {
  TempDir dir;
  const std::string scn = (dir.path() / "run.yaml").string();
  const std::string fabric = (dir.path() / "f.yaml").string();
  const std::string at = scn + ":3:17: cluster.file: ";
  EXPECT_EQ(testing::load_error_as(scenario("{file: f.yaml}"), scn), at + "cannot open fabric file '" + fabric + "'");
  // Zero bandwidth, at the bandwidth in the fabric file.
  dir.write("f.yaml",
            edited(std::string(kFabric), "gpu1, to: sw0, bandwidth: 200GB/s", "gpu1, to: sw0, bandwidth: 0GB/s"));
  EXPECT_EQ(testing::load_error_as(scenario("{file: f.yaml}"), scn),
            at + fabric + ":14:38: links[1].bandwidth: expected a bandwidth > 0 on link 'gpu1' -> 'sw0', got '0GB/s'");
  // A node no link reaches, at the node.
  dir.write("f.yaml", edited(std::string(kFabric), "links:\n", "  - {name: lonely, kind: spine}\nlinks:\n"));
  EXPECT_EQ(testing::load_error_as(scenario("{file: f.yaml}"), scn),
            at + fabric + ":12:5: topology is disconnected: 'lonely' cannot reach 'gpu0'");
  // A one-way uplink: box 0 cannot reach box 1.
  dir.write("f.yaml", edited(std::string(kFabric), "nic1, to: tor, bandwidth: 400Gbps, latency: 2us, efficiency: 0.9}",
                             "nic1, to: tor, bandwidth: 400Gbps, latency: 2us, efficiency: 0.9, duplex: false}"));
  EXPECT_EQ(
      testing::load_error_as(scenario("{file: f.yaml}"), scn),
      at + fabric + ":3:5: device 'gpu0' has no path to device 'gpu2' (a link with duplex: false runs one way only)");
}

TEST(ScenarioFabric, DeploymentMustFitAndPresetKeysDoNotApply) {
  TempDir dir;
  dir.write("f.yaml", kFabric);
  const std::string scn = (dir.path() / "run.yaml").string();
  EXPECT_EQ(testing::load_error_as(scenario("{file: f.yaml}", 8), scn),
            scn +
                ":6:5: deployment.colocated.ranks: 8 ranks do not fit on a cluster of 4 devices (fabric f.yaml, 2 "
                "scale-up domains)");
  EXPECT_EQ(testing::load_error_as(scenario("{file: f.yaml, nodes: 2}"), scn),
            scn + ":3:25: cluster.nodes: 'nodes' does not apply to a fabric file, which lists every node and link");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: h800\ncluster: {file: f.yaml}\n"
                                   "deployment:\n  prefill: {ranks: 2}\n  decode: {ranks: 4}\n",
                                   scn),
            scn +
                ":5:3: deployment: the prefill and decode pools need 6 devices; the cluster has 4 devices (fabric "
                "f.yaml, 2 scale-up domains)");
}

}  // namespace
}  // namespace moesim::scenarios
