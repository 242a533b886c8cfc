// One unit parser for every input: a spelling that works in a scenario works in a hardware profile
// and in a fabric file, and gives the same value in each (docs/design.md §3).
#include <gtest/gtest.h>

#include <string>

#include "calibration/hardware_yaml.h"
#include "scenarios/loader.h"
#include "topology/topology_yaml.h"

namespace moesim::scenarios {
namespace {

std::string hardware(std::string_view capacity, std::string_view bandwidth, std::string_view latency) {
  return "name: dev\nsource: test\ncompute: {sm_count: 10, fp8: 20TFLOPS, bf16: 10TFLOPS}\n"
         "memory: {capacity: " +
         std::string(capacity) + ", bandwidth: " + std::string(bandwidth) +
         "}\nnetwork: {scaleup: " + std::string(bandwidth) + ", nic: " + std::string(bandwidth) +
         ", scaleup_latency: " + std::string(latency) + "}\n";
}

std::string fabric(std::string_view bandwidth, std::string_view latency) {
  return "nodes:\n  - {name: gpu0, kind: device, domain: 0}\n  - {name: gpu1, kind: device, domain: 0}\n"
         "links:\n  - {from: gpu0, to: gpu1, bandwidth: " +
         std::string(bandwidth) + ", latency: " + std::string(latency) + "}\n";
}

std::string scenario(std::string_view size, std::string_view bandwidth, std::string_view latency) {
  return "model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, nic: " + std::string(bandwidth) +
         ", scaleup: " + std::string(bandwidth) + ", nic_latency: " + std::string(latency) +
         "}\ndeployment:\n  colocated:\n    ranks: 8\n    kv_tiers: {host: " + std::string(size) +
         ", host_bandwidth: " + std::string(bandwidth) +
         "}\nworkload:\n  sessions: {turns: {dist: uniform, min: 2, max: 6}, think_time: " + std::string(latency) +
         "}\n";
}

struct Spelling {
  const char* size;
  const char* bandwidth;
  const char* latency;
  double bytes;
  double bytes_per_s;
  double ns;
};

TEST(UnitSpellings, SameInAScenarioAHardwareProfileAndAFabricFile) {
  const Spelling spellings[] = {
      {"80GiB", "400Gb/s", "2us", 80.0 * (1ULL << 30), 50e9, 2e3},
      {"80GB", "400Gbps", "1.5ms", 80e9, 50e9, 1.5e6},
      {"64 kB", "50GB/s", "500ns", 64e3, 50e9, 500},
      {"1TiB", "50GBps", "0.001s", 1024.0 * (1ULL << 30), 50e9, 1e6},
      {"512MiB", "100GiB/s", "2 us", 512.0 * (1 << 20), 100.0 * (1ULL << 30), 2e3},
      {"2TB", "3.35TB/s", "1us", 2e12, 3.35e12, 1e3},
      {"4096B", "1.6Tbps", "100ns", 4096, 200e9, 100},
  };
  for (const Spelling& s : spellings) {
    SCOPED_TRACE(std::string(s.size) + " " + s.bandwidth + " " + s.latency);
    const Scenario scn = load_scenario_string(scenario(s.size, s.bandwidth, s.latency), "scn.yaml");
    EXPECT_EQ(scn.cluster.nic_bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(scn.cluster.scaleup_bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(scn.cluster.nic_latency_ns, s.ns);
    EXPECT_EQ(scn.deployment.colocated.kv_tiers.host_bytes, s.bytes);
    EXPECT_EQ(scn.deployment.colocated.kv_tiers.host_bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(scn.workload.sessions.think_time_s, s.ns / 1e9);

    const calibration::HardwareProfile hw =
        calibration::load_hardware_yaml(hardware(s.size, s.bandwidth, s.latency), "dev.yaml");
    EXPECT_EQ(hw.hbm_bytes, s.bytes);
    EXPECT_EQ(hw.hbm_bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(hw.nic_bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(hw.scaleup_latency_ns.value_or(-1), s.ns);

    const topology::Cluster c = topology::load_topology_yaml(fabric(s.bandwidth, s.latency), "fabric.yaml");
    EXPECT_EQ(c.link_props(0).bytes_per_s, s.bytes_per_s);
    EXPECT_EQ(c.link_props(0).latency_ns, s.ns);
  }
}

}  // namespace
}  // namespace moesim::scenarios
