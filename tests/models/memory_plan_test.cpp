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
              static_cast<double>(expert_params(m)) * (256 / 32) * m.num_moe_layers() * per_param, 1.0);
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

TEST(MemoryPlan, AttentionTensorParallelSplitsPerHeadWeights) {
  // MLA under TP: q_b, kv_b and o_proj are split by heads, the q_a and kv_a down-projections
  // stay whole on every rank; the three dense layers' MLPs are split too (Megatron-LM).
  const ModelSpec m = deepseek();
  MemoryOptions tp1, tp4;
  tp1.ep = tp4.ep = 32;
  tp4.attention_tp = 4;
  double per_head = 0;
  for (const auto& op : attention_projections(m))
    if (op.name == "q_b_proj" || op.name == "kv_b_proj" || op.name == "o_proj")
      per_head += static_cast<double>(op.params());
  ASSERT_GT(per_head, 0);
  const double dense = static_cast<double>(count_parameters(m).dense_mlp);
  const double saved = plan_rank_memory(m, tp1).weight_bytes - plan_rank_memory(m, tp4).weight_bytes;
  const double per_param = 1.0 + 4.0 / (128 * 128);
  EXPECT_NEAR(saved, (per_head * m.num_layers + dense) * per_param * 3 / 4, 1e-6 * saved);
}

TEST(MemoryPlan, MlaLatentCacheIsReplicatedAcrossTheTpGroupGqaHeadsAreSplit) {
  const ModelSpec mla = deepseek();
  MemoryOptions tp1, tp8;
  tp1.ep = tp8.ep = 32;
  tp8.attention_tp = 8;
  tp1.capacity_bytes = tp8.capacity_bytes = 80 * kGiB;
  EXPECT_DOUBLE_EQ(plan_rank_memory(mla, tp8).kv_bytes_per_token, mla.kv_bytes_per_token());
  EXPECT_DOUBLE_EQ(plan_rank_memory(mla, tp1).kv_bytes_per_token, 61.0 * (512 + 64) * 2);
  // Mixtral: 8 KV heads of 128, BF16, 32 layers: TP4 keeps 2 heads per rank, TP16 one (replicated).
  const ModelSpec gqa = *find_model_preset("mixtral-8x7b");
  MemoryOptions o;
  o.ep = 8;
  o.capacity_bytes = 80 * kGiB;
  o.attention_tp = 4;
  EXPECT_DOUBLE_EQ(plan_rank_memory(gqa, o).kv_bytes_per_token, 32.0 * 2 * 2 * 128 * 2);
  o.attention_tp = 16;
  EXPECT_DOUBLE_EQ(plan_rank_memory(gqa, o).kv_bytes_per_token, 32.0 * 2 * 1 * 128 * 2);
}

TEST(MemoryPlan, MoeTensorParallelSplitsEveryExpert) {
  const ModelSpec m = *find_model_preset("mixtral-8x7b");
  MemoryOptions ep8, tp8;
  ep8.ep = 8;
  tp8.ep = 1;
  tp8.moe_tp = 8;
  // Either way a rank holds one eighth of the routed experts: one whole expert, or an eighth of
  // each of the 8.
  EXPECT_NEAR(plan_rank_memory(m, ep8).routed_expert_bytes, plan_rank_memory(m, tp8).routed_expert_bytes, 1.0);
  EXPECT_NEAR(plan_rank_memory(m, tp8).routed_expert_bytes, static_cast<double>(expert_params(m)) * 32 * 2.0,
              1.0);  // 8 experts / 8, 32 layers, BF16
}

TEST(MemoryPlan, PipelineStageHoldsOnlyItsLayers) {
  const ModelSpec m = deepseek();
  MemoryOptions all, first, last;
  all.ep = first.ep = last.ep = 32;
  all.capacity_bytes = first.capacity_bytes = last.capacity_bytes = 80 * kGiB;
  first.layer_end = 31;
  last.layer_begin = 31;
  const MemoryPlan a = plan_rank_memory(m, all), f = plan_rank_memory(m, first), l = plan_rank_memory(m, last);
  // Input embedding on the first stage, LM head on the last, the layers split between them.
  const double table = static_cast<double>(m.vocab) * m.hidden * 2;  // BF16
  EXPECT_NEAR(f.weight_bytes + l.weight_bytes, a.weight_bytes, 1e-9 * a.weight_bytes);
  EXPECT_NEAR(f.routed_expert_bytes + l.routed_expert_bytes, a.routed_expert_bytes, 1.0);
  EXPECT_GT(f.weight_bytes, table);
  EXPECT_DOUBLE_EQ(f.kv_bytes_per_token, 31.0 * 1152);
  EXPECT_DOUBLE_EQ(l.kv_bytes_per_token, 30.0 * 1152);
}

TEST(MemoryPlan, TableNamesEveryItem) {
  const std::string t = plan(deepseek(), 32).table();
  for (const char* item : {"capacity", "weights", "activations", "comm buffers", "KV cache"})
    EXPECT_NE(t.find(item), std::string::npos) << item;
}

}  // namespace
}  // namespace moesim::models
