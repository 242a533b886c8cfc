// A scenario can name a profile written by `moesim calibrate fit`: its fitted GEMM parameters
// reach the hardware, and its measured all-to-all efficiency and latency become the cluster's
// defaults (keys in the scenario's cluster section still win).
#include <gtest/gtest.h>

#include <string>

#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::TempDir;

constexpr std::string_view kMeasured =
    "name: lab-h200\n"
    "source: moesim calibrate fit of gemm.csv\n"
    "compute: {sm_count: 132, fp8: 1979TFLOPS, bf16: 989TFLOPS}\n"
    "memory: {capacity: 141GiB, bandwidth: 4.8TB/s}\n"
    "network: {scaleup: 450GB/s, nic: 400Gbps, scaleup_efficiency: 0.71, scaleup_latency: 14us}\n"
    "gemm:\n"
    "  fp8: {mma_fraction: 0.65, hbm_fraction: 0.9, fixed_overhead: 5us, per_group_overhead: 2us,\n"
    "        per_tile_overhead: 1us}\n";

TEST(CalibratedProfile, ScenarioUsesItsFitAndItsAllToAllFigures) {
  TempDir dir;
  dir.write("profiles/lab-h200.yaml", kMeasured);
  const std::string rest =
      "model: tiny-moe\nhardware: {file: profiles/lab-h200.yaml}\n"
      "deployment: {colocated: {ranks: 8}}\n";
  const Scenario s = load_scenario_file(dir.write("run.yaml", rest + "cluster: {nodes: 1}\n"));
  EXPECT_EQ(s.hardware.name, "lab-h200");
  ASSERT_EQ(s.hardware.gemm_fits.size(), 1u);
  EXPECT_EQ(s.hardware.gemm_fits[0].params.mma_fraction, 0.65);
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, 450e9);
  EXPECT_EQ(s.cluster.scaleup_efficiency, 0.71);
  EXPECT_EQ(s.cluster.scaleup_latency_ns, 14000.0);
  const Scenario o =
      load_scenario_file(dir.write("over.yaml", rest + "cluster: {nodes: 1, scaleup_efficiency: 0.5}\n"));
  EXPECT_EQ(o.cluster.scaleup_efficiency, 0.5);
  EXPECT_EQ(o.cluster.scaleup_latency_ns, 14000.0);
  // A spec-sheet preset leaves the cluster preset's own calibration alone.
  const Scenario p = load_scenario_string(
      "model: tiny-moe\nhardware: h200\ncluster: {nodes: 1}\n"
      "deployment: {colocated: {ranks: 8}}\n",
      "p.yaml");
  EXPECT_EQ(p.cluster.scaleup_efficiency, topology::cluster_preset_defaults("hgx").scaleup_efficiency);
}

}  // namespace
}  // namespace moesim::scenarios
