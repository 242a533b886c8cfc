// The YAML preset library: every preset loads, cites its source, and the shapes tests depend on
// are unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model_test_support.h"
#include "models/model_yaml.h"

namespace moesim::models {
namespace {

using test::preset;

const std::vector<std::string> kPublished = {
    "deepseek-v3",  "kimi-k2",          "qwen3-235b-a22b", "qwen3-30b-a3b",     "mixtral-8x7b",     "mixtral-8x22b",
    "gpt-oss-120b", "llama-4-maverick", "deepseek-r1-fp4", "gpt-oss-20b",       "deepseek-v2-lite", "glm-4.5",
    "glm-4.6",      "minimax-m2",       "deepseek-v3.2",   "qwen3-next-80b-a3b"};

TEST(PresetLibrary, ListsEveryPresetOnce) {
  std::vector<std::string> names;
  for (const auto& info : model_presets()) names.emplace_back(info.name);
  std::vector<std::string> expected = kPublished;
  expected.push_back("tiny-moe");
  std::sort(names.begin(), names.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
}

TEST(PresetLibrary, EveryPublishedPresetCitesItsHuggingFaceConfig) {
  for (const auto& name : kPublished) {
    const ModelSpec m = preset(name);
    EXPECT_EQ(m.name, name);
    EXPECT_TRUE(m.source.starts_with("https://huggingface.co/")) << name << ": " << m.source;
    EXPECT_TRUE(m.source.ends_with("/config.json")) << name << ": " << m.source;
    EXPECT_FALSE(m.description.empty()) << name;
  }
  EXPECT_FALSE(preset("tiny-moe").source.empty());
}

TEST(PresetLibrary, EveryPresetFileLoadsFromTheSourceTree) {
  for (const auto& info : model_presets()) {
    const std::string path = std::string(MOESIM_SOURCE_DIR) + "/models/presets/" + std::string(info.name) + ".yaml";
    const ModelSpec m = load_model_file(path);
    EXPECT_EQ(m.name, info.name);
    EXPECT_EQ(m.num_layers, preset(m.name).num_layers);
  }
}

// The values the C++ preset had before the YAML library (deepseek-ai/DeepSeek-V3 config.json).
TEST(PresetLibrary, DeepSeekV3KeepsItsFieldValues) {
  const ModelSpec m = preset("deepseek-v3");
  EXPECT_EQ(m.num_layers, 61);
  EXPECT_EQ(m.hidden, 7168);
  EXPECT_EQ(m.vocab, 129280);
  EXPECT_EQ(m.attention, AttentionKind::kMla);
  EXPECT_EQ(m.heads, 128);
  EXPECT_EQ(m.mla.q_lora_rank, 1536);
  EXPECT_EQ(m.mla.kv_lora_rank, 512);
  EXPECT_EQ(m.mla.qk_nope_head_dim, 128);
  EXPECT_EQ(m.mla.qk_rope_head_dim, 64);
  EXPECT_EQ(m.mla.v_head_dim, 128);
  EXPECT_EQ(m.first_k_dense, 3);
  EXPECT_EQ(m.moe_every, 1);
  EXPECT_EQ(m.dense_intermediate, 18432);
  EXPECT_EQ(m.moe_intermediate, 2048);
  EXPECT_EQ(m.routed_experts, 256);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.top_k, 8);
  EXPECT_EQ(m.scoring, RouterScoring::kSigmoid);
  EXPECT_EQ(m.expert_groups, 8);
  EXPECT_EQ(m.top_groups, 4);
  EXPECT_EQ(m.weight_dtype, DType::kFp8);
  EXPECT_EQ(m.expert_dtype(), DType::kFp8);
  EXPECT_EQ(m.kv_dtype, DType::kBf16);
  EXPECT_EQ(m.dispatch_dtype, DType::kFp8);
  EXPECT_EQ(m.combine_dtype, DType::kBf16);
  EXPECT_EQ(m.activation_dtype, DType::kBf16);
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_FALSE(m.tie_embeddings);
  EXPECT_EQ(m.window.size, 0);
}

TEST(PresetLibrary, TinyMoeKeepsItsShape) {
  const ModelSpec m = preset("tiny-moe");
  EXPECT_EQ(m.num_layers, 4);
  EXPECT_EQ(m.hidden, 256);
  EXPECT_EQ(m.vocab, 1024);
  EXPECT_EQ(m.attention, AttentionKind::kGqa);
  EXPECT_EQ(m.heads, 8);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.head_dim, 32);
  EXPECT_EQ(m.first_k_dense, 1);
  EXPECT_EQ(m.dense_intermediate, 1024);
  EXPECT_EQ(m.moe_intermediate, 128);
  EXPECT_EQ(m.routed_experts, 16);
  EXPECT_EQ(m.shared_experts, 1);
  EXPECT_EQ(m.top_k, 2);
  EXPECT_EQ(m.weight_dtype, DType::kBf16);
  EXPECT_EQ(m.dispatch_dtype, DType::kBf16);
}

TEST(PresetLibrary, LayerPatternsFollowTheConfigs) {
  // Llama 4 Maverick: moe_layers = range(interleave_moe_layer_step - 1, 48, 2) = 1, 3, ..., 47.
  const ModelSpec l = preset("llama-4-maverick");
  for (int i = 0; i < l.num_layers; ++i) EXPECT_EQ(l.is_moe_layer(i), i % 2 == 1) << i;
  // Kimi-K2: first_k_dense_replace 1.
  const ModelSpec k = preset("kimi-k2");
  EXPECT_FALSE(k.is_moe_layer(0));
  EXPECT_EQ(k.num_moe_layers(), 60);
  // Qwen3 and Mixtral: every layer MoE.
  for (const char* name : {"qwen3-235b-a22b", "qwen3-30b-a3b", "mixtral-8x7b", "mixtral-8x22b", "gpt-oss-120b"})
    EXPECT_EQ(preset(name).num_dense_layers(), 0) << name;
}

// KV bytes per token per layer, derived from each preset's config.json (the checked-in fixture,
// read as JSON here) rather than from ModelSpec's own formula.
TEST(PresetKvCache, MlaPresetsCacheLatentPlusRopeKey) {
  for (const char* name : {"deepseek-v3", "kimi-k2"}) {
    const ModelSpec m = preset(name);
    const auto cfg = test::fixture_config(name);
    const double bytes =
        (cfg["kv_lora_rank"].get<double>() + cfg["qk_rope_head_dim"].get<double>()) * bytes_per_element(m.kv_dtype);
    EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), bytes) << name;
    EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), bytes * cfg["num_hidden_layers"].get<double>()) << name;
  }
}

TEST(PresetKvCache, GqaPresetsCacheKeysAndValuesOfEveryKvHead) {
  for (const char* name :
       {"qwen3-235b-a22b", "qwen3-30b-a3b", "mixtral-8x7b", "mixtral-8x22b", "gpt-oss-120b", "llama-4-maverick"}) {
    const ModelSpec m = preset(name);
    const auto cfg = test::fixture_config(name);
    const double head_dim = cfg.contains("head_dim") && !cfg["head_dim"].is_null()
                                ? cfg["head_dim"].get<double>()
                                : cfg["hidden_size"].get<double>() / cfg["num_attention_heads"].get<double>();
    const double bytes = 2 * cfg["num_key_value_heads"].get<double>() * head_dim * bytes_per_element(m.kv_dtype);
    EXPECT_DOUBLE_EQ(m.kv_bytes_per_token_per_layer(), bytes) << name;
  }
}

}  // namespace
}  // namespace moesim::models
