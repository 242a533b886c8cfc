// One test per class of scenario error, asserting the exact one-line message.
#include <gtest/gtest.h>

#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "scenarios/loader.h"
#include "tests/scenarios/scenario_test_support.h"
#include "topology/cluster.h"
#include "workloads/arrivals.h"
#include "workloads/routing_model.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::load_error;
using testing::valid_names;

using testing::with;

TEST(ScenarioErrors, UnknownKeySuggestsClosest) {
  EXPECT_EQ(load_error("model: tiny-moe\n"
                       "hardware: h800\n"
                       "cluster: {nodes: 1}\n"
                       "deployment:\n"
                       "  colocated:\n"
                       "    ranks: 8\n"
                       "    moe: {epp: 8}\n"),
            "scn.yaml:7:11: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?");
  EXPECT_EQ(load_error(with("deployment_:\n")),
            "scn.yaml:7:1: deployment_: unknown key 'deployment_'; did you mean 'deployment'?");
}

TEST(ScenarioErrors, UnknownKeySuggestsByPrefix) {
  EXPECT_EQ(load_error(with("    batch: {max_running: 8}\n")),
            "scn.yaml:7:13: deployment.colocated.batch.max_running: unknown key 'max_running'; "
            "did you mean 'max_running_per_rank'?");
}

TEST(ScenarioErrors, UnknownKeyWithoutCloseMatchListsValidKeys) {
  EXPECT_EQ(load_error("model: tiny-moe\ncolour: red\n"),
            "scn.yaml:2:1: colour: unknown key 'colour' (valid keys: name, seed, model, hardware, cost_model, "
            "cluster, deployment, routing, workload, slo, pricing, outputs)");
  EXPECT_EQ(load_error(with("slo: {latency: 2s}\n")),
            "scn.yaml:7:7: slo.latency: unknown key 'latency' (valid keys: ttft_p90, tpot_p90)");
}

// A file that is not YAML at all reads as one long scalar: the error quotes its start, not all of it.
TEST(ScenarioErrors, ANonYamlFileIsNotEchoedWhole) {
  const std::string text(5000, 'x');
  EXPECT_EQ(load_error(text + "\nmore text\n"),
            "scn.yaml:1:1: expected a map of scenario keys, got 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' "
            "(5010 characters)");
  EXPECT_EQ(load_error("model: {file: short}\n").find("..."), std::string::npos);
}

TEST(ScenarioErrors, WrongType) {
  EXPECT_EQ(load_error("model: tiny-moe\n"
                       "hardware: h800\n"
                       "cluster: {nodes: 1}\n"
                       "deployment:\n"
                       "  colocated:\n"
                       "    ranks: abc\n"),
            "scn.yaml:6:12: deployment.colocated.ranks: expected an integer, got 'abc'");
  EXPECT_EQ(load_error(with("workload: {requests: 1.5}\n")),
            "scn.yaml:7:22: workload.requests: expected an integer, got '1.5'");
  EXPECT_EQ(load_error("model: [tiny-moe]\n"), "scn.yaml:1:8: model: expected a string, got a list");
  EXPECT_EQ(load_error("model: {name: tiny-moe}\n"),
            "scn.yaml:1:9: model.name: unknown key 'name' (valid keys: preset, file, hf_config, dtypes)");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: [1, 2]\n"),
            "scn.yaml:3:10: cluster: expected a map, got a list");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware:\n"),
            "scn.yaml:2:1: hardware: expected a string, got an empty value");
  EXPECT_EQ(load_error(with("outputs: {requests_csv: maybe}\n")),
            "scn.yaml:7:25: outputs.requests_csv: expected true or false, got 'maybe'");
  EXPECT_EQ(load_error(with("cluster: {nodes: 1, nic_efficiency: high}\n")),
            "scn.yaml:7:1: cluster: duplicate key 'cluster' (first at line 3, column 1)");
  EXPECT_EQ(load_error(with("name: ''\n")), "scn.yaml:7:7: name: expected a non-empty string");
}

TEST(ScenarioErrors, OutOfRange) {
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 0}\n"),
            "scn.yaml:3:18: cluster.nodes: expected an integer >= 1, got 0");
  EXPECT_EQ(load_error(with("workload: {requests: 200000000}\n")),
            "scn.yaml:7:22: workload.requests: expected an integer in [1, 100000000], got 200000000");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, nic_efficiency: 1.5}\n"),
            "scn.yaml:3:37: cluster.nic_efficiency: expected a number in (0, 1], got 1.5");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 99999999999}\n"),
            "scn.yaml:3:18: cluster.nodes: expected an integer in [1, 2147483647], got 99999999999");
}

TEST(ScenarioErrors, MissingRequiredKey) {
  EXPECT_EQ(load_error("model: tiny-moe\n"), "scn.yaml:1:1: missing required key 'hardware'");
  EXPECT_EQ(load_error(""), "scn.yaml:1:1: missing required key 'model'");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\n"), "scn.yaml:1:1: missing required key 'cluster'");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {devices_per_node: 4}\n"),
            "scn.yaml:3:10: cluster: missing required key 'nodes'");
  EXPECT_EQ(load_error("model: tiny-moe\n"
                       "hardware: h800\n"
                       "cluster: {nodes: 1}\n"
                       "deployment:\n"
                       "  colocated:\n"
                       "    attention: {dp: 8}\n"),
            "scn.yaml:6:5: deployment.colocated: missing required key 'ranks'");
}

TEST(ScenarioErrors, TopLevelMustBeAMap) {
  EXPECT_EQ(load_error("- model\n- hardware\n"), "scn.yaml:1:1: expected a map of scenario keys, got a list");
}

TEST(ScenarioErrors, BadUnit) {
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, nic: 400}\n"),
            "scn.yaml:3:26: cluster.nic: expected a bandwidth with a unit (bps, Kbps, Mbps, Gbps, Tbps, b/s, "
            "Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, TB/s, Bps, KBps, MBps, GBps, TBps, KiB/s, MiB/s, "
            "GiB/s, TiB/s; b = bits, B = bytes), got '400'");
  EXPECT_EQ(load_error(with("slo: {ttft_p90: 2}\n")),
            "scn.yaml:7:17: slo.ttft_p90: expected a duration with a unit (ns, us, ms, s, min, h), got '2'");
  EXPECT_EQ(load_error(with("slo: {tpot_p90: [50ms]}\n")),
            "scn.yaml:7:17: slo.tpot_p90: expected a duration, got a list");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {nodes: 1, nic: 0Gbps}\n"),
            "scn.yaml:3:26: cluster.nic: expected a bandwidth > 0, got '0Gbps'");
}

TEST(ScenarioErrors, UnknownPresetSuggestsClosest) {
  EXPECT_EQ(load_error("model: deepseek-v4\n"),
            "scn.yaml:1:8: model: unknown model 'deepseek-v4'; did you mean 'deepseek-v3'? (valid: " +
                valid_names(models::model_presets()) + ")");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h900\n"),
            "scn.yaml:2:11: hardware: unknown hardware 'h900'; did you mean 'h800'? (valid: " +
                valid_names(calibration::hardware_presets()) + ")");
  EXPECT_EQ(load_error("model: tiny-moe\nhardware: h800\ncluster: {preset: dgx-superpod, nodes: 1}\n"),
            "scn.yaml:3:19: cluster.preset: unknown cluster preset 'dgx-superpod' (valid: " +
                valid_names(topology::cluster_presets()) + ")");
}

TEST(ScenarioErrors, UnknownRegistryName) {
  EXPECT_EQ(load_error(with("workload: {arrivals: {process: poison}}\n")),
            "scn.yaml:7:32: workload.arrivals.process: unknown arrival process 'poison'; did you mean 'poisson'? "
            "(valid: " +
                valid_names(workloads::arrival_processes()) + ")");
  EXPECT_EQ(load_error(with("workload: {input_tokens: {dist: fixd}}\n")),
            "scn.yaml:7:33: workload.input_tokens.dist: unknown length distribution 'fixd'; did you mean 'fixed'? "
            "(valid: " +
                valid_names(workloads::length_distributions()) + ")");
  EXPECT_EQ(load_error(with("routing: {model: unifrom}\n")),
            "scn.yaml:7:18: routing.model: unknown routing model 'unifrom'; did you mean 'uniform'? (valid: " +
                valid_names(workloads::routing_models()) + ")");
}

TEST(ScenarioErrors, RanksMustFitTheCluster) {
  EXPECT_EQ(load_error("model: deepseek-v3\n"
                       "hardware: h800\n"
                       "cluster: {nodes: 4}\n"
                       "deployment:\n"
                       "  colocated:\n"
                       "    ranks: 64\n"),
            "scn.yaml:6:5: deployment.colocated.ranks: 64 ranks do not fit on a cluster of 32 devices (4 nodes x 8)");
}

TEST(ScenarioErrors, AttentionDegreesMustCoverRanks) {
  EXPECT_EQ(load_error(with("    attention: {dp: 4}\n")),
            "scn.yaml:7:17: deployment.colocated.attention.dp: attention dp 4 x tp 1 = 4 does not match ranks 8");
  EXPECT_EQ(load_error(with("    attention: {dp: 2, tp: 2}\n")),
            "scn.yaml:7:17: deployment.colocated.attention.dp: attention dp 2 x tp 2 = 4 does not match ranks 8");
}

TEST(ScenarioErrors, MoeDegreesMustCoverRanks) {
  EXPECT_EQ(load_error(with("    moe: {ep: 4}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.ep: moe ep 4 x tp 1 = 4 does not match ranks 8");
}

TEST(ScenarioErrors, ExpertsMustDivideOverEp) {
  const std::string base =
      "model: deepseek-v3\n"
      "hardware: h800\n"
      "cluster: {nodes: 6}\n"
      "deployment:\n"
      "  colocated:\n"
      "    ranks: 48\n";
  EXPECT_EQ(load_error(base), "scn.yaml:6:5: deployment.colocated.ranks: 256 routed experts do not divide over ep 48");
  EXPECT_EQ(load_error(base + "    moe: {ep: 48}\n"),
            "scn.yaml:7:11: deployment.colocated.moe.ep: 256 routed experts do not divide over ep 48");
}

TEST(ScenarioErrors, YamlSyntaxErrorHasPosition) {
  EXPECT_EQ(load_error("model: tiny-moe\n hardware: h800\n"), "scn.yaml:2:10: YAML syntax error: illegal map value");
  EXPECT_EQ(load_error("model: tiny-moe\ncluster: {nodes: 1\n"),
            "scn.yaml:3:1: YAML syntax error: end of map flow not found");
}

// Found by fuzzing: a stray top-level ',' made yaml-cpp 0.7's LoadAll loop forever.
TEST(ScenarioErrors, StrayTopLevelCommaIsASyntaxError) {
  EXPECT_EQ(load_error(",\n" + std::string(kMinimal)),
            "scn.yaml:1:1: YAML syntax error: unexpected character (the parser cannot go on from here)");
}

TEST(ScenarioErrors, OneDocumentOnly) {
  EXPECT_EQ(load_error(std::string(kMinimal) + "---\nmodel: tiny-moe\n"),
            "scn.yaml:8:1: expected one YAML document, found 2");
}

TEST(ScenarioErrors, MissingFile) {
  try {
    load_scenario_file("/nonexistent/dir/x.yaml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "cannot open scenario file '/nonexistent/dir/x.yaml'");
  }
}

}  // namespace
}  // namespace moesim::scenarios
