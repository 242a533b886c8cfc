// The `runtime` section of a pool, EPLB's statistics keys and the validation manifest: what they
// read, and their one-line errors, verbatim.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "scenarios/loader.h"
#include "scenarios/validation_suite.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::load_error;

std::string pool(std::string_view extra) {
  return "model: deepseek-v3\nhardware: h800\ncluster: {nodes: 4}\ndeployment:\n  colocated:\n    ranks: 32\n" +
         std::string(extra);
}

TEST(ScenarioRuntime, ReadsAPresetAndItsOverrides) {
  const auto s = load_scenario_string(pool("    runtime: {preset: trtllm, cuda_graph_batch_sizes: [128, 8, 8], "
                                           "overlap_scheduler: false, host_per_request: 20us}\n"),
                                      "scn.yaml");
  const auto& r = s.deployment.colocated.runtime;
  EXPECT_EQ(r.preset, "trtllm");
  EXPECT_FALSE(r.graph_everything);
  EXPECT_EQ(r.graph_batch_sizes, (std::vector<int>{8, 128}));  // sorted, duplicates dropped
  EXPECT_FALSE(r.graph_padding);                               // TensorRT-LLM pads only on request
  EXPECT_FALSE(r.overlap_scheduler);
  EXPECT_DOUBLE_EQ(r.host_per_request_ns, 20'000);
  EXPECT_DOUBLE_EQ(r.eager_launch_ns, 10'000);
  // No runtime section: the kernels alone.
  EXPECT_TRUE(load_scenario_string(pool(""), "scn.yaml").deployment.colocated.runtime.graph_everything);
}

TEST(ScenarioRuntime, ErrorsNameTheKey) {
  EXPECT_EQ(load_error(pool("    runtime: {preset: sglng}\n")),
            "scn.yaml:7:23: deployment.colocated.runtime.preset: unknown runtime preset 'sglng'; did you mean "
            "'sglang'? (valid: ideal, sglang, vllm, trtllm)");
  EXPECT_EQ(load_error(pool("    runtime: {host_step: 1ms}\n")),
            "scn.yaml:7:15: deployment.colocated.runtime.host_step: runtime 'ideal' is the kernels alone and takes "
            "no settings; choose an engine preset (sglang, vllm, trtllm)");
  EXPECT_EQ(load_error(pool("    runtime: {preset: vllm, cuda_graph_batch_sizes: 8}\n")),
            "scn.yaml:7:53: deployment.colocated.runtime.cuda_graph_batch_sizes: expected a list of batch sizes "
            "such as [1, 2, 4, 8], got '8'");
  EXPECT_EQ(load_error(pool("    runtime: {preset: vllm, graphs: [8]}\n")),
            "scn.yaml:7:29: deployment.colocated.runtime.graphs: unknown key 'graphs' (valid keys: preset, "
            "cuda_graph_batch_sizes, cuda_graph_padding, eager_launch, graph_launch, host_step, host_per_request, "
            "overlap_scheduler)");
}

TEST(ScenarioRuntime, EplbStatisticsNeedAnEplbPlacement) {
  EXPECT_EQ(load_error(pool("    moe: {ep: 32, eplb_statistics: oracle}\n")),
            "scn.yaml:7:19: deployment.colocated.moe.eplb_statistics: EPLB statistics need an eplb placement; "
            "placement 'contiguous' does not depend on load");
  EXPECT_EQ(load_error(pool("    moe: {ep: 32, placement: eplb, eplb_statistics: future}\n")),
            "scn.yaml:7:53: deployment.colocated.moe.eplb_statistics: unknown EPLB statistics 'future' (valid: "
            "history, oracle)");
  const auto s = load_scenario_string(pool("    moe: {ep: 32, placement: eplb, eplb_window_steps: 50}\n"), "scn.yaml");
  EXPECT_EQ(s.deployment.colocated.placement.statistics, sim::EplbStatistics::kHistory);
  EXPECT_EQ(s.deployment.colocated.placement.window_steps, 50);
}

std::string manifest_error(const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "moesim_manifest_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cases.yaml") << text;
  try {
    load_validation_suite(dir.string());
  } catch (const ScenarioError& e) {
    std::string what = e.what();
    const std::string prefix = (dir / "cases.yaml").string();
    return what.rfind(prefix, 0) == 0 ? "cases.yaml" + what.substr(prefix.size()) : what;
  }
  return "";
}

TEST(ValidationManifest, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(manifest_error("cases: []\n"), "cases.yaml:1:8: cases: expected a non-empty list of cases, got a list");
  EXPECT_EQ(manifest_error("cases:\n  - {name: a, scenario: s.yaml, measure: {fixed-batch: {pool: decode, kv: 10}}}\n"),
            "cases.yaml:2:56: cases[0].measure.fixed-batch: give either 'sequences' and 'kv' (decode) or 'prompt' "
            "and 'tokens' (prefill)");
  EXPECT_EQ(manifest_error("cases:\n  - {name: a, measure: {ratio: {of: b, to: c}}}\n"),
            "cases.yaml:2:5: cases[0].measure.ratio: case 'b' is not defined before this one (a ratio names "
            "earlier cases)");
  EXPECT_EQ(manifest_error("cases:\n  - {name: a, scenario: s.yaml, measure: {run: {figure: x}}, publishd: 1}\n"),
            "cases.yaml:2:62: cases[0].publishd: unknown key 'publishd'; did you mean 'published'?");
  EXPECT_EQ(manifest_error("cases:\n  - {name: a, scenario: s.yaml, measure: {run: {figure: x}}}\n"),
            "cases.yaml:2:57: cases[0].measure.run.figure: unknown figure 'x' (valid: output_tokens_per_gpu_s, "
            "input_tokens_per_gpu_s, steady_output_tokens_per_gpu_s)");
}

// The shipped suite reads, and names its cases in order.
TEST(ValidationManifest, TheShippedSuiteReads) {
  const auto suite = load_validation_suite(std::string(MOESIM_SOURCE_DIR) + "/scenarios/validation");
  ASSERT_GE(suite.cases.size(), 8u);
  EXPECT_EQ(suite.cases.front().name, "d1-decode");
  int published = 0;
  for (const auto& c : suite.cases) published += c.published ? 1 : 0;
  EXPECT_GE(published, 7);
}

}  // namespace
}  // namespace moesim::scenarios
