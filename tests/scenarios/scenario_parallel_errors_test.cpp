// The parallel degrees (attention TP, MoE TP, pipeline stages) and speculative decoding in a
// pool: what loads, and the exact message of each error.
#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "sim/speculative.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::load_error;

// tiny-moe (4 layers, 8 heads / 2 KV heads, 16 experts of 128, one shared) on one node.
std::string pool(std::string_view ranks, std::string_view extra) {
  return "model: tiny-moe\n"
         "hardware: h800\n"
         "cluster: {nodes: 1}\n"
         "deployment:\n"
         "  colocated:\n"
         "    ranks: " +
         std::string(ranks) + "\n" + std::string(extra);
}

TEST(ScenarioParallel, TensorParallelDegreesDefaultFromTheRanks) {
  const auto s = load_scenario_string(pool("8", "    attention: {tp: 4}\n    moe: {tp: 2}\n"), "scn.yaml");
  EXPECT_EQ(s.deployment.colocated.attention_dp, 2);
  EXPECT_EQ(s.deployment.colocated.attention_tp, 4);
  EXPECT_EQ(s.deployment.colocated.moe_ep, 4);
  EXPECT_EQ(s.deployment.colocated.moe_tp, 2);
  const auto p = load_scenario_string(pool("8", "    pp: 2\n"), "scn.yaml");
  EXPECT_EQ(p.deployment.colocated.pipeline_stages, 2);
  EXPECT_EQ(p.deployment.colocated.attention_dp, 4);
  EXPECT_EQ(p.deployment.colocated.moe_ep, 4);
}

TEST(ScenarioParallel, AttentionTensorParallelErrors) {
  EXPECT_EQ(load_error(pool("6", "    attention: {tp: 4}\n")),
            "scn.yaml:7:17: deployment.colocated.attention.tp: attention tp 4 does not divide ranks 6");
  EXPECT_EQ(load_error(pool("6", "    attention: {tp: 3}\n    moe: {ep: 2}\n")),
            "scn.yaml:7:17: deployment.colocated.attention.tp: attention tp 3 does not divide the 8 attention heads "
            "of tiny-moe");
  EXPECT_EQ(load_error(pool("8", "    attention: {dp: 1, tp: 4}\n")),
            "scn.yaml:7:17: deployment.colocated.attention.dp: attention dp 1 x tp 4 = 4 does not match ranks 8");
}

TEST(ScenarioParallel, MoeTensorParallelErrors) {
  EXPECT_EQ(load_error(pool("6", "    moe: {tp: 3}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.tp: moe tp 3 does not divide the expert intermediate size 128 "
            "of tiny-moe");
  EXPECT_EQ(load_error(pool("8", "    moe: {ep: 2, tp: 2}\n")),
            "scn.yaml:7:11: deployment.colocated.moe.ep: moe ep 2 x tp 2 = 4 does not match ranks 8");
}

TEST(ScenarioParallel, PipelineStageErrors) {
  EXPECT_EQ(load_error(pool("8", "    pp: 3\n")),
            "scn.yaml:7:5: deployment.colocated.pp: 8 ranks do not split into pp 3 stages");
  EXPECT_EQ(load_error(pool("8", "    pp: 8\n")),
            "scn.yaml:7:5: deployment.colocated.pp: pp 8 exceeds the 4 layers of tiny-moe");
  EXPECT_EQ(load_error(pool("8", "    pp: 2\n    attention: {dp: 8}\n")),
            "scn.yaml:8:17: deployment.colocated.attention.dp: attention dp 8 x tp 1 = 8 does not match ranks 4 per "
            "stage (8 / pp 2)");
  EXPECT_EQ(load_error(pool("8", "    pp: 2\n    moe: {placement: eplb, rebalance_interval: 10s}\n")),
            "scn.yaml:8:28: deployment.colocated.moe.rebalance_interval: EPLB rebalancing is not modelled with "
            "pipeline stages (pp 2)");
  EXPECT_EQ(load_error(pool("8", "    pp: 0\n")),
            "scn.yaml:7:9: deployment.colocated.pp: expected an integer >= 1, got 0");
}

TEST(ScenarioParallel, SpeculativeLoads) {
  const auto s = load_scenario_string(
      "model: deepseek-v3\nhardware: h800\ncluster: {nodes: 4}\n"
      "deployment:\n  colocated:\n    ranks: 32\n"
      "    speculative: {tokens: 2, acceptance: [0.9, 0.7]}\n",
      "scn.yaml");
  const auto& spec = s.deployment.colocated.speculative;
  EXPECT_EQ(spec.method, sim::SpeculativeMethod::kMtp);
  EXPECT_EQ(spec.tokens, 2);
  EXPECT_DOUBLE_EQ(sim::expected_emitted_tokens(spec), 1 + 0.9 + 0.9 * 0.7);
}

TEST(ScenarioParallel, SpeculativeErrors) {
  EXPECT_EQ(load_error(pool("8", "    speculative: {acceptance: 0.8}\n")),
            "scn.yaml:7:5: deployment.colocated.speculative: model tiny-moe has no MTP module (mtp_layers 0); use "
            "method draft with a draft_model");
  EXPECT_EQ(load_error(pool("8", "    speculative: {method: draft, acceptance: 0.8}\n")),
            "scn.yaml:7:18: deployment.colocated.speculative: missing required key 'draft_model'");
  EXPECT_EQ(load_error(pool("8", "    speculative: {method: mtp, tokens: 2, acceptance: [0.9, 0.8, 0.7]}\n")),
            "scn.yaml:7:55: deployment.colocated.speculative.acceptance: speculative acceptance needs one value or "
            "one per draft token (2), got 3");
  EXPECT_EQ(load_error(pool("8", "    speculative: {method: mtp, acceptance: 1.5}\n")),
            "scn.yaml:7:44: deployment.colocated.speculative.acceptance: expected a number in [0, 1], got 1.5");
  EXPECT_EQ(load_error(pool("8", "    speculative: {method: medusa, acceptance: 0.5}\n")),
            "scn.yaml:7:27: deployment.colocated.speculative.method: unknown speculative method 'medusa' (valid: mtp, "
            "draft)");
  EXPECT_EQ(load_error(pool("8", "    speculative: {method: draft, acceptance: 0.5, draft_model: mixtral-8x7b}\n")),
            "scn.yaml:7:64: deployment.colocated.speculative.draft_model: draft model mixtral-8x7b has routed "
            "experts; only dense draft models are modelled");
  EXPECT_EQ(load_error(pool("8", "    speculative: {acceptance: 0.5, tokenz: 2}\n")),
            "scn.yaml:7:36: deployment.colocated.speculative.tokenz: unknown key 'tokenz'; did you mean 'tokens'?");
  EXPECT_EQ(load_error("model: deepseek-v3\nhardware: h800\ncluster: {nodes: 8}\ndeployment:\n"
                       "  prefill: {ranks: 32, speculative: {acceptance: 0.5}}\n"
                       "  decode: {ranks: 32}\n"),
            "scn.yaml:5:24: deployment.prefill.speculative: speculative decoding needs a pool that decodes; the "
            "prefill pool only prefills");
}

}  // namespace
}  // namespace moesim::scenarios
