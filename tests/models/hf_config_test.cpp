// Hugging Face config.json import: each checked-in fixture (real field names and values of the
// public config) reproduces the matching preset, and errors name the key or the JSON position.
#include "models/hf_config.h"

#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <string>
#include <vector>

#include "model_test_support.h"
#include "models/layer_ops.h"

namespace moesim::models {
namespace {

using test::data_path;
using test::preset;

ModelSpec import(const std::string& fixture) { return load_hf_config(data_path(fixture + ".config.json")); }

std::string hf_error(const std::string& json) {
  return moesim::testing::thrown_message<ModelError>([&] { load_hf_config_text(json, "config.json"); });
}

// Every architectural field, dtypes included (name, description and source differ by design).
void expect_same_architecture(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.num_layers, b.num_layers);
  EXPECT_EQ(a.hidden, b.hidden);
  EXPECT_EQ(a.vocab, b.vocab);
  EXPECT_EQ(a.tie_embeddings, b.tie_embeddings);
  EXPECT_EQ(a.mtp_layers, b.mtp_layers);
  EXPECT_EQ(a.attention, b.attention);
  EXPECT_EQ(a.heads, b.heads);
  EXPECT_EQ(a.kv_heads, b.kv_heads);
  EXPECT_EQ(a.head_dim, b.head_dim);
  if (a.attention == AttentionKind::kMla) {
    EXPECT_EQ(a.mla.q_lora_rank, b.mla.q_lora_rank);
    EXPECT_EQ(a.mla.kv_lora_rank, b.mla.kv_lora_rank);
    EXPECT_EQ(a.mla.qk_nope_head_dim, b.mla.qk_nope_head_dim);
    EXPECT_EQ(a.mla.qk_rope_head_dim, b.mla.qk_rope_head_dim);
    EXPECT_EQ(a.mla.v_head_dim, b.mla.v_head_dim);
  }
  EXPECT_EQ(a.sparse.index_heads, b.sparse.index_heads);
  EXPECT_EQ(a.sparse.index_head_dim, b.sparse.index_head_dim);
  EXPECT_EQ(a.sparse.top_k, b.sparse.top_k);
  EXPECT_EQ(a.window.size, b.window.size);
  EXPECT_EQ(a.window.kind, b.window.kind);
  EXPECT_EQ(a.window.full_every, b.window.full_every);
  EXPECT_EQ(a.attention_sinks, b.attention_sinks);
  EXPECT_EQ(a.first_k_dense, b.first_k_dense);
  EXPECT_EQ(a.moe_every, b.moe_every);
  EXPECT_EQ(a.dense_intermediate, b.dense_intermediate);
  EXPECT_EQ(a.moe_intermediate, b.moe_intermediate);
  EXPECT_EQ(a.routed_experts, b.routed_experts);
  EXPECT_EQ(a.shared_experts, b.shared_experts);
  EXPECT_EQ(a.top_k, b.top_k);
  EXPECT_EQ(a.scoring, b.scoring);
  EXPECT_EQ(a.expert_groups, b.expert_groups);
  EXPECT_EQ(a.top_groups, b.top_groups);
  EXPECT_EQ(a.weight_dtype, b.weight_dtype);
  EXPECT_EQ(a.expert_dtype(), b.expert_dtype());
  EXPECT_EQ(a.kv_dtype, b.kv_dtype);
  EXPECT_EQ(a.dispatch_dtype, b.dispatch_dtype);
  EXPECT_EQ(a.combine_dtype, b.combine_dtype);
  // Forward-pass numerics (the functional decoder's).
  EXPECT_EQ(a.norm_eps, b.norm_eps);
  EXPECT_EQ(a.rope.theta, b.rope.theta);
  EXPECT_EQ(a.rope.interleaved, b.rope.interleaved);
  EXPECT_EQ(a.rope.partial, b.rope.partial);
  EXPECT_EQ(a.rope.yarn_factor, b.rope.yarn_factor);
  EXPECT_EQ(a.rope.yarn_original_context, b.rope.yarn_original_context);
  EXPECT_EQ(a.rope.yarn_beta_fast, b.rope.yarn_beta_fast);
  EXPECT_EQ(a.rope.yarn_beta_slow, b.rope.yarn_beta_slow);
  EXPECT_EQ(a.rope.yarn_mscale, b.rope.yarn_mscale);
  EXPECT_EQ(a.rope.yarn_mscale_all_dim, b.rope.yarn_mscale_all_dim);
  EXPECT_EQ(a.rope.yarn_truncate, b.rope.yarn_truncate);
  EXPECT_EQ(a.qk_norm, b.qk_norm);
  EXPECT_EQ(a.qkv_bias, b.qkv_bias);
  EXPECT_EQ(a.norm_top_k, b.norm_top_k);
  EXPECT_EQ(a.routed_scaling, b.routed_scaling);
  EXPECT_EQ(a.shared_expert_gate, b.shared_expert_gate);
  EXPECT_EQ(a.output_gate, b.output_gate);
  EXPECT_EQ(a.linear.full_every, b.linear.full_every);
  EXPECT_EQ(a.linear.key_heads, b.linear.key_heads);
  EXPECT_EQ(a.linear.value_heads, b.linear.value_heads);
  EXPECT_EQ(a.linear.key_head_dim, b.linear.key_head_dim);
  EXPECT_EQ(a.linear.value_head_dim, b.linear.value_head_dim);
  EXPECT_EQ(a.linear.conv_kernel, b.linear.conv_kernel);
  EXPECT_EQ(a.linear.state_dtype, b.linear.state_dtype);
}

TEST(HfConfig, EveryPublishedPresetIsReproducedFromItsConfig) {
  for (const char* name : {"deepseek-v3", "deepseek-v3.2", "kimi-k2", "qwen3-235b-a22b", "qwen3-30b-a3b",
                           "mixtral-8x7b", "mixtral-8x22b", "gpt-oss-120b", "gpt-oss-20b", "llama-4-maverick",
                           "deepseek-v2-lite", "glm-4.5", "glm-4.6", "minimax-m2", "qwen3-next-80b-a3b"}) {
    SCOPED_TRACE(name);
    const ModelSpec imported = import(name);
    expect_same_architecture(imported, preset(name));
    EXPECT_EQ(imported.source, data_path(std::string(name) + ".config.json"));
  }
}

// Partial RoPE comes from partial_rotary_factor (GLM) or rotary_dim (MiniMax-M2), and a bad one
// names its key.
TEST(HfConfig, PartialRotaryFromEitherKey) {
  EXPECT_EQ(import("glm-4.5").rotary_dim(), 64);
  EXPECT_EQ(import("minimax-m2").rotary_dim(), 64);
  EXPECT_EQ(import("qwen3-30b-a3b").rotary_dim(), 128);
  const std::string head = R"({"architectures": ["MiniMaxM2ForCausalLM"], "num_hidden_layers": 2, "hidden_size": 64,
    "vocab_size": 10, "num_attention_heads": 4, "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2,
    "intermediate_size": 32, )";
  EXPECT_EQ(hf_error(head + R"("rotary_dim": 32})"), "config.json: rotary_dim: 32 exceeds head_dim 16");
  EXPECT_EQ(hf_error(head + R"("partial_rotary_factor": 1.5})"),
            "config.json: partial_rotary_factor: expected a fraction in (0, 1], got 1.500000");
}

// Qwen3-Next's hybrid layout from full_attention_interval, or from layer_types when listed; a
// pattern other than "full on every Nth layer" is refused by name.
TEST(HfConfig, Qwen3NextLayerTypes) {
  nlohmann::json j = test::fixture_config("qwen3-next-80b-a3b");
  EXPECT_EQ(import("qwen3-next-80b-a3b").num_linear_layers(), 36);
  std::vector<std::string> types(48, "linear_attention");
  for (std::size_t i = 1; i < types.size(); i += 2) types[i] = "full_attention";
  j["layer_types"] = types;
  EXPECT_EQ(load_hf_config_text(j.dump(), "config.json").linear.full_every, 2);
  types[5] = "linear_attention";
  j["layer_types"] = types;
  EXPECT_EQ(hf_error(j.dump()),
            "config.json: layer_types: linear/full attention pattern is not 'full on every Nth layer'; unsupported");
}

TEST(HfConfig, NameComesFromNameOrPath) {
  EXPECT_EQ(import("deepseek-v3").name, "DeepSeek-V3");
  EXPECT_EQ(import("mixtral-8x7b").name, "mixtral");  // no _name_or_path: the model_type
}

// DeepSeek-V2-Lite: no q LoRA (q_lora_rank null), 2 shared experts, softmax router; the V2 paper
// gives 15.7 B total and 2.4 B activated parameters.
TEST(HfConfig, DeepSeekV2Lite) {
  const ModelSpec m = import("deepseek-v2-lite");
  EXPECT_EQ(m.attention, AttentionKind::kMla);
  EXPECT_EQ(m.mla.q_lora_rank, 0);
  EXPECT_EQ(m.heads, 16);
  EXPECT_EQ(m.routed_experts, 64);
  EXPECT_EQ(m.shared_experts, 2);
  EXPECT_EQ(m.top_k, 6);
  EXPECT_EQ(m.first_k_dense, 1);
  EXPECT_EQ(m.scoring, RouterScoring::kSoftmax);
  EXPECT_EQ(m.weight_dtype, DType::kBf16);  // no quantization_config
  EXPECT_EQ(m.dispatch_dtype, DType::kBf16);
  const ParameterCount p = count_parameters(m);
  EXPECT_NEAR(static_cast<double>(p.total()) / 15.7e9, 1.0, 0.01);
  EXPECT_NEAR(static_cast<double>(p.activated) / 2.4e9, 1.0, 0.03);  // "2.4B": two significant figures
}

// Qwen1.5-MoE-A2.7B (Qwen2MoeForCausalLM): one shared expert 4× the routed width counts as 4;
// Qwen reports 14.3 B total and 2.7 B activated (embedding table included).
TEST(HfConfig, Qwen2MoeSharedExpertWidth) {
  const ModelSpec m = import("qwen1.5-moe-a2.7b");
  EXPECT_EQ(m.attention, AttentionKind::kMha);
  EXPECT_EQ(m.routed_experts, 60);
  EXPECT_EQ(m.top_k, 4);
  EXPECT_EQ(m.shared_experts, 5632 / 1408);
  EXPECT_EQ(m.window.size, 0);  // sliding_window is set but use_sliding_window is false
  const ParameterCount p = count_parameters(m);
  EXPECT_NEAR(static_cast<double>(p.total()) / 14.3e9, 1.0, 0.01);
  EXPECT_NEAR((static_cast<double>(p.activated) + 1.0 * m.vocab * m.hidden) / 2.7e9, 1.0, 0.01);
}

// The numerics the forward pass needs, read from the fixtures' own keys.
TEST(HfConfig, ForwardNumerics) {
  const ModelSpec v3 = import("deepseek-v3");
  EXPECT_EQ(v3.rope.theta, 10000);
  EXPECT_TRUE(v3.rope.interleaved);
  EXPECT_EQ(v3.rope.yarn_factor, 40);
  EXPECT_EQ(v3.rope.yarn_original_context, 4096);
  EXPECT_EQ(v3.rope.yarn_mscale_all_dim, 1.0);
  EXPECT_TRUE(v3.norm_top_k);
  EXPECT_EQ(v3.routed_scaling, 2.5);
  EXPECT_EQ(v3.qk_norm, QkNorm::kNone);
  const ModelSpec v2 = import("deepseek-v2-lite");
  EXPECT_FALSE(v2.norm_top_k);
  EXPECT_EQ(v2.rope.yarn_factor, 40);
  EXPECT_EQ(v2.rope.yarn_mscale, 0.707);
  EXPECT_EQ(v2.rope.yarn_mscale_all_dim, 0.707);
  const ModelSpec qwen2 = import("qwen1.5-moe-a2.7b");
  EXPECT_TRUE(qwen2.qkv_bias);
  EXPECT_TRUE(qwen2.shared_expert_gate);
  EXPECT_FALSE(qwen2.norm_top_k);
  EXPECT_EQ(qwen2.qk_norm, QkNorm::kNone);
  const ModelSpec qwen3 = import("qwen3-30b-a3b");
  EXPECT_EQ(qwen3.qk_norm, QkNorm::kPerHead);
  EXPECT_FALSE(qwen3.qkv_bias);
  EXPECT_TRUE(qwen3.norm_top_k);
  EXPECT_EQ(qwen3.rope.theta, 1e6);
  const ModelSpec olmoe = import("olmoe-1b-7b");
  EXPECT_EQ(olmoe.qk_norm, QkNorm::kFull);
  EXPECT_FALSE(olmoe.norm_top_k);
  const ModelSpec mixtral = import("mixtral-8x7b");
  EXPECT_TRUE(mixtral.norm_top_k);
  EXPECT_EQ(mixtral.norm_eps, 1e-5);
  const ModelSpec oss = import("gpt-oss-120b");
  EXPECT_TRUE(oss.qkv_bias);
  EXPECT_EQ(oss.rope.yarn_factor, 32);
  EXPECT_FALSE(oss.rope.yarn_truncate);
  EXPECT_EQ(oss.rope.yarn_mscale_all_dim, 0);  // not given: cos/sin scale by 0.1 ln(32) + 1
  EXPECT_EQ(hf_error(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 2, "hidden_size": 8,
                         "vocab_size": 8, "num_attention_heads": 2, "num_local_experts": 2,
                         "num_experts_per_tok": 1, "intermediate_size": 8, "rope_theta": "big"})"),
            "config.json: rope_theta: expected a number, got \"big\"");
}

// OLMoE-1B-7B: MHA (16 KV heads), 64 experts top-8, every layer MoE; 6.9 B total (OLMoE paper).
TEST(HfConfig, Olmoe) {
  const ModelSpec m = import("olmoe-1b-7b");
  EXPECT_EQ(m.attention, AttentionKind::kMha);
  EXPECT_EQ(m.kv_heads, 16);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.routed_experts, 64);
  EXPECT_EQ(m.top_k, 8);
  EXPECT_EQ(m.moe_intermediate, 1024);
  EXPECT_EQ(m.num_dense_layers(), 0);
  EXPECT_NEAR(static_cast<double>(count_parameters(m).total()) / 6.9e9, 1.0, 0.01);
}

// Dense models: Llama-3.1-8B (8.03 B), Qwen2-7B (7.62 B), Qwen3-8B (8.2 B) per their model cards.
TEST(HfConfig, DenseModels) {
  for (auto [name, total] :
       {std::pair<const char*, double>{"llama-3.1-8b", 8.03e9}, {"qwen2-7b", 7.62e9}, {"qwen3-8b", 8.2e9}}) {
    SCOPED_TRACE(name);
    const ModelSpec m = import(name);
    EXPECT_EQ(m.routed_experts, 0);
    EXPECT_EQ(m.num_moe_layers(), 0);
    EXPECT_EQ(m.attention, AttentionKind::kGqa);
    EXPECT_EQ(m.head_dim, 128);
    EXPECT_NEAR(static_cast<double>(count_parameters(m).total()) / total, 1.0, 0.01);
  }
}

TEST(HfConfig, TiedEmbeddingsAndDefaults) {
  const ModelSpec m = load_hf_config_text(
      R"({"architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024, "intermediate_size": 3072,
          "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 28,
          "vocab_size": 151936, "tie_word_embeddings": true})",
      "qwen3-0.6b.json");
  EXPECT_TRUE(m.tie_embeddings);
  EXPECT_EQ(count_parameters(m).embedding, 151936LL * 1024);
  EXPECT_EQ(m.name, "hf-model");
}

// Found by fuzzing: nlohmann reports a number beyond a double as out_of_range, not parse_error;
// the error is a ModelError pointing at the literal.
TEST(HfConfig, NumberOverflowIsASyntaxErrorAtTheLiteral) {
  EXPECT_EQ(hf_error(R"({"architectures": [1e999]})"),
            "config.json:1:20: JSON syntax error: number overflow parsing '1e999'");
  EXPECT_EQ(hf_error("{\n  \"hidden_size\": -4e4444\n}"),
            "config.json:2:18: JSON syntax error: number overflow parsing '-4e4444'");
}

TEST(HfConfig, AbsurdLayerAndExpertCountsAreRefused) {
  EXPECT_EQ(hf_error(R"({"architectures": ["MixtralForCausalLM"], "num_hidden_layers": 1000000000})"),
            "config.json: num_hidden_layers: 1000000000 exceeds the limit of 4096");
}

TEST(HfConfig, JsonSyntaxErrorNamesLineAndColumn) {
  const std::string e = hf_error("{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"hidden_size\": 40 96\n}\n");
  // nlohmann positions the error at the last character of the offending token ("96").
  EXPECT_TRUE(e.starts_with("config.json:3:22: JSON syntax error: ")) << e;
  EXPECT_NE(e.find("unexpected number literal"), std::string::npos) << e;
}

TEST(HfConfig, UnknownArchitectureListsTheSupportedOnes) {
  EXPECT_EQ(hf_error(R"({"architectures": ["MixtralForCausalLm"]})"),
            "config.json: architectures: unknown architecture 'MixtralForCausalLm'; did you mean "
            "'MixtralForCausalLM'? (valid: DeepseekV3ForCausalLM, DeepseekV2ForCausalLM, DeepseekV32ForCausalLM, "
            "MixtralForCausalLM, "
            "Qwen3MoeForCausalLM, Qwen2MoeForCausalLM, Qwen3NextForCausalLM, OlmoeForCausalLM, GptOssForCausalLM, "
            "Glm4MoeForCausalLM, "
            "MiniMaxM2ForCausalLM, "
            "Llama4ForConditionalGeneration, LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM)");
}

TEST(HfConfig, MissingAndMistypedKeys) {
  EXPECT_EQ(hf_error(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096})"),
            "config.json: num_hidden_layers: missing required key");
  EXPECT_EQ(hf_error(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": "32"})"),
            "config.json: num_hidden_layers: expected an integer, got \"32\"");
  EXPECT_EQ(hf_error(R"({"architectures": ["Llama4ForConditionalGeneration"]})"),
            "config.json: text_config: missing required key");
}

TEST(HfConfig, UnsupportedLayerPatternsAreErrors) {
  const std::string qwen = R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 8,
      "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 1000, "num_experts": 8,
      "num_experts_per_tok": 2, "moe_intermediate_size": 768, "mlp_only_layers": [5]})";
  EXPECT_EQ(hf_error(qwen), "config.json: mlp_only_layers: [5] is not a leading run of layers; unsupported");
}

}  // namespace
}  // namespace moesim::models
