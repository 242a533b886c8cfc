#include "models/memory.h"

#include <gtest/gtest.h>

#include <cmath>

#include "models/layer_ops.h"
#include "models/presets.h"

namespace moesim::models {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

ModelSpec deepseek() {
  auto m = find_model_preset("deepseek-v3");
  EXPECT_TRUE(m.has_value());
  return m.value_or(ModelSpec{});
}

MemoryPlan plan(const ModelSpec& m, int ep, double capacity_bytes = 80 * kGiB) {
  MemoryOptions o;
  o.ep = ep;
  o.capacity_bytes = capacity_bytes;
  return plan_rank_memory(m, o);
}

TEST(MemoryPlan, WeightsPerRankShrinkAsEpGrows) {
  const ModelSpec m = deepseek();
  double previous = 0;
  for (int ep : {256, 128, 64, 32, 16, 8}) {
    const MemoryPlan p = plan(m, ep);
    if (previous > 0) {
      EXPECT_GT(p.weight_bytes, previous) << "ep " << ep;
    }
    previous = p.weight_bytes;
  }
}

TEST(MemoryPlan, OnlyRoutedExpertsAreSplitOverEp) {
  const ModelSpec m = deepseek();
  const MemoryPlan p8 = plan(m, 8), p32 = plan(m, 32);
  // What is not a routed expert is replicated: identical on every EP degree.
  EXPECT_NEAR(p8.weight_bytes - p8.routed_expert_bytes, p32.weight_bytes - p32.routed_expert_bytes,
              1e-9 * p8.weight_bytes);
  // 256 experts divide evenly: 32 vs 8 per rank, so exactly 4× the bytes.
  EXPECT_NEAR(p8.routed_expert_bytes, 4 * p32.routed_expert_bytes, 1e-9 * p8.routed_expert_bytes);
  // FP8 block-scaled: 1 byte per weight + one FP32 scale per 128×128 block.
  const double per_param = 1.0 + 4.0 / (128 * 128);
  EXPECT_NEAR(p32.routed_expert_bytes,
              static_cast<double>(expert_params(m)) * (256 / 32) * m.num_moe_layers() * per_param,
              1.0);
}

TEST(MemoryPlan, UnevenEpRoundsExpertsPerRankUp) {
  const ModelSpec m = deepseek();
  // 256 experts on EP 96: ceil(256 / 96) = 3 experts per rank, the same as on EP 86.
  EXPECT_DOUBLE_EQ(plan(m, 96).routed_expert_bytes, plan(m, 86).routed_expert_bytes);
  EXPECT_GT(plan(m, 85).routed_expert_bytes, plan(m, 86).routed_expert_bytes);  // ceil(256/85) = 4
}

TEST(MemoryPlan, DeepSeekV3OutOfMemoryOnEp8With80GB) {
  const MemoryPlan p = plan(deepseek(), 8);
  // 671 B parameters in FP8 over 8 ranks do not fit in 80 GB: the routed experts alone need
  // ~654 B / 8 ≈ 82 GB per rank.
  EXPECT_GT(p.routed_expert_bytes, 80e9);
  EXPECT_FALSE(p.fits()) << p.table();
  EXPECT_LT(p.kv_bytes, 0);
  EXPECT_EQ(p.kv_capacity_tokens, 0);
}

TEST(MemoryPlan, DeepSeekV3FitsOnEp32With80GB) {
  const ModelSpec m = deepseek();
  const MemoryPlan p = plan(m, 32);
  EXPECT_TRUE(p.fits()) << p.table();
  // The KV budget is what the other items leave, and it is counted in whole tokens.
  EXPECT_NEAR(p.kv_bytes,
              p.capacity_bytes - p.weight_bytes - p.activation_bytes - p.comm_buffer_bytes - p.runtime_reserve_bytes,
              1.0);
  EXPECT_EQ(p.kv_capacity_tokens, static_cast<std::int64_t>(std::floor(p.kv_bytes / m.kv_bytes_per_token())));
  // At 70 KB per token (61 layers × 1152 B) tens of GB hold hundreds of thousands of tokens.
  EXPECT_GT(p.kv_capacity_tokens, 100'000);
}

TEST(MemoryPlan, BiggerTokenBudgetLeavesLessForKv) {
  const ModelSpec m = deepseek();
  MemoryOptions small, big;
  small.ep = big.ep = 32;
  small.capacity_bytes = big.capacity_bytes = 80 * kGiB;
  small.token_budget_per_rank = 1024;
  big.token_budget_per_rank = 8192;
  const MemoryPlan a = plan_rank_memory(m, small), b = plan_rank_memory(m, big);
  EXPECT_GT(b.activation_bytes, a.activation_bytes);
  EXPECT_GT(b.comm_buffer_bytes, a.comm_buffer_bytes);
  EXPECT_LT(b.kv_capacity_tokens, a.kv_capacity_tokens);
  EXPECT_DOUBLE_EQ(b.weight_bytes, a.weight_bytes);
}

TEST(MemoryPlan, AttentionTensorParallelSplitsAttentionWeights) {
  const ModelSpec m = deepseek();
  MemoryOptions tp1, tp4;
  tp1.ep = tp4.ep = 32;
  tp4.attention_tp = 4;
  const ParameterCount params = count_parameters(m);
  const double saved = plan_rank_memory(m, tp1).weight_bytes - plan_rank_memory(m, tp4).weight_bytes;
  const double per_param = 1.0 + 4.0 / (128 * 128);
  EXPECT_NEAR(saved, static_cast<double>(params.attention) * per_param * 3 / 4, 1e-6 * saved);
}

TEST(MemoryPlan, TableNamesEveryItem) {
  const std::string t = plan(deepseek(), 32).table();
  for (const char* item : {"capacity", "weights", "activations", "comm buffers", "KV cache"})
    EXPECT_NE(t.find(item), std::string::npos) << item;
}

}  // namespace
}  // namespace moesim::models
