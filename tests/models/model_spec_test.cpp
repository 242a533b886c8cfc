#include "models/model_spec.h"

#include <gtest/gtest.h>

#include "tests/models/model_test_support.h"

#include "models/layer_ops.h"
#include "models/memory.h"
#include "models/presets.h"

namespace moesim::models {
namespace {

using moesim::models::test::preset;

TEST(ModelPresets, EveryListedPresetResolvesUnderItsName) {
  const auto list = model_presets();
  ASSERT_GE(list.size(), 2u);
  for (const auto& info : list) {
    const auto m = find_model_preset(info.name);
    ASSERT_TRUE(m.has_value()) << info.name;
    EXPECT_EQ(m->name, info.name);
    EXPECT_FALSE(info.description.empty());
  }
  EXPECT_FALSE(find_model_preset("no-such-model").has_value());
}

TEST(MoeLayers, DeepSeekV3HasThreeDenseThenFiftyEightMoe) {
  const ModelSpec m = preset("deepseek-v3");
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(m.is_moe_layer(i)) << i;
  for (int i = 3; i < 61; ++i) EXPECT_TRUE(m.is_moe_layer(i)) << i;
  EXPECT_FALSE(m.is_moe_layer(-1));
  EXPECT_FALSE(m.is_moe_layer(61));
  EXPECT_EQ(m.num_moe_layers(), 58);
  EXPECT_EQ(m.num_dense_layers(), 3);
}

TEST(MoeLayers, MoeEveryOtherLayerAfterTheDensePrefix) {
  ModelSpec m = preset("tiny-moe");
  m.num_layers = 9;
  m.first_k_dense = 1;
  m.moe_every = 2;
  // MoE at 1, 3, 5, 7; dense at 0, 2, 4, 6, 8.
  for (int i = 0; i < 9; ++i) EXPECT_EQ(m.is_moe_layer(i), i % 2 == 1) << i;
  EXPECT_EQ(m.num_moe_layers(), 4);
  EXPECT_EQ(m.num_dense_layers(), 5);
}

TEST(MoeLayers, ModelWithoutRoutedExpertsIsDense) {
  ModelSpec m = preset("tiny-moe");
  m.routed_experts = 0;
  EXPECT_EQ(m.num_moe_layers(), 0);
  EXPECT_EQ(m.num_dense_layers(), m.num_layers);
}

TEST(KvCache, MlaCachesLatentPlusRopeKeyPerToken) {
  const ModelSpec m = preset("deepseek-v3");
  ASSERT_EQ(m.attention, AttentionKind::kMla);
  // One latent c_kv of kv_lora_rank plus the decoupled RoPE key shared by all heads.
  const double per_layer =
      static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * bytes_per_element(m.kv_dtype);
  EXPECT_EQ(m.kv_elements_per_token_per_layer(), m.mla.kv_lora_rank + m.mla.qk_rope_head_dim);
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), per_layer);
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), per_layer * m.num_layers);
  // DeepSeek-V3 config.json: kv_lora_rank 512, qk_rope_head_dim 64; BF16 cache → 1152 B per layer.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), (512 + 64) * 2.0);
}

TEST(KvCache, MlaCacheIndependentOfHeadCount) {
  ModelSpec m = preset("deepseek-v3");
  const double before = m.kv_bytes_per_token_per_layer();
  m.heads *= 2;
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), before);
}

TEST(KvCache, GqaCachesKeyAndValuePerKvHead) {
  const ModelSpec m = preset("tiny-moe");
  ASSERT_EQ(m.attention, AttentionKind::kGqa);
  const double per_layer = 2.0 * m.kv_heads * m.head_dim * bytes_per_element(m.kv_dtype);
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), per_layer);
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), per_layer * m.num_layers);
}

TEST(KvCache, Fp8CacheHalvesBf16Bytes) {
  for (const char* name : {"deepseek-v3", "tiny-moe"}) {
    ModelSpec m = preset(name);
    m.kv_dtype = DType::kBf16;
    const double bf16 = m.kv_bytes_per_token_per_layer();
    m.kv_dtype = DType::kFp8;
    EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer() * 2, bf16) << name;
  }
}

// An NVFP4 KV cache (TensorRT-LLM on Blackwell) stores 4 bits and an E4M3 scale per 16 values:
// 0.5625 of FP8's bytes, so 1/0.5625 = 1.78 times the tokens fit in the same memory, and the
// attention core reads (and the cache write writes) that many fewer bytes.
TEST(KvCache, Nvfp4CacheCountsItsBlockScales) {
  ModelSpec m = preset("deepseek-r1-fp4");
  m.kv_dtype = DType::kFp8;
  const double fp8 = m.kv_bytes_per_token_per_layer();
  const Work core8 = attention_decode_core(m, 8192);
  m.kv_dtype = DType::kNvfp4;
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), fp8 * (0.5 + 1.0 / 16));
  EXPECT_DOUBLE_EQ(attention_decode_core(m, 8192).bytes, core8.bytes * (0.5 + 1.0 / 16));
  MemoryOptions o;
  o.ep = 8;
  o.capacity_bytes = 180e9;
  const MemoryPlan p4 = plan_rank_memory(m, o);
  m.kv_dtype = DType::kFp8;
  const MemoryPlan p8 = plan_rank_memory(m, o);
  EXPECT_NEAR(static_cast<double>(p4.kv_capacity_tokens) / static_cast<double>(p8.kv_capacity_tokens), 1 / 0.5625,
              1e-4);
}

}  // namespace
}  // namespace moesim::models
