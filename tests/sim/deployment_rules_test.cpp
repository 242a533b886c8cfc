// The pool rules written once in sim (sim/deployment_rules.h): the field each broken rule names,
// which the scenario loader turns into a YAML position, and its message.
#include <gtest/gtest.h>

#include "models/presets.h"
#include "sim/deployment_rules.h"

namespace moesim::sim {
namespace {

// tiny-moe: 4 layers, 8 heads, 16 routed experts, no MTP module; one node of 8 ranks.
PoolConfig tiny_pool() {
  PoolConfig p;
  p.ranks = 8;
  p.attention_dp = 8;
  p.moe_ep = 8;
  return p;
}

DeploymentProblem problem_of(const PoolConfig& p) {
  const auto problem = pool_problem(p, *models::find_model_preset("tiny-moe"), 8);
  if (!problem) return {PoolField::kRanks, "<no problem>"};
  return *problem;
}

TEST(DeploymentRules, AValidPoolHasNoProblem) {
  EXPECT_FALSE(pool_problem(tiny_pool(), *models::find_model_preset("tiny-moe"), 8).has_value());
}

TEST(DeploymentRules, NameTheFieldAndTheReason) {
  PoolConfig p = tiny_pool();
  p.pipeline_stages = 3;
  auto bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kPipelineStages);
  EXPECT_EQ(bad.message, "8 ranks do not split into pp 3 stages");

  p = tiny_pool();
  p.attention_dp = 4;
  bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kAttentionDp);
  EXPECT_EQ(bad.message, "attention dp 4 x tp 1 = 4 does not match ranks 8");

  p = tiny_pool();
  p.ranks = 6;
  p.attention_dp = 6;
  p.moe_ep = 6;
  bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kMoeEp);
  EXPECT_EQ(bad.message, "16 routed experts do not divide over ep 6");

  p = tiny_pool();
  p.placement.redundant = 8;
  bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kRedundantExperts);
  EXPECT_EQ(bad.message, "placement 'contiguous': has no redundant slots (use eplb)");

  p = tiny_pool();
  p.placement.rebalance_interval_s = 1;
  bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kRebalanceInterval);
  EXPECT_EQ(bad.message, "rebalancing needs an eplb placement; placement 'contiguous' does not depend on load");

  p = tiny_pool();
  p.speculative.method = SpeculativeMethod::kMtp;
  p.speculative.tokens = 1;
  p.speculative.acceptance = {0.8};
  bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kSpeculativeMethod);
  EXPECT_EQ(bad.message, "model tiny-moe has no MTP module (mtp_layers 0); use method draft with a draft_model");
}

TEST(DeploymentRules, AfdRulesNameTheirSectionWithoutAPosition) {
  PoolConfig p = tiny_pool();
  p.afd.attention_ranks = 8;
  const auto bad = problem_of(p);
  EXPECT_EQ(bad.field, PoolField::kAfdAttentionRanks);
  EXPECT_EQ(bad.message, "attention_ranks 8 leaves none of the 8 ranks for the experts");
  EXPECT_EQ(bad.text(), "afd: attention_ranks 8 leaves none of the 8 ranks for the experts");
  EXPECT_EQ(degree_ranks_text(p, false), "the 0 expert ranks (ranks 8 - afd attention_ranks 8)");
}

}  // namespace
}  // namespace moesim::sim
