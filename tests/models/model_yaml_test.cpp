// The strict model YAML reader: what it accepts and the exact one-line errors it gives.
#include "models/model_yaml.h"

#include <gtest/gtest.h>

#include "tests/thrown.h"

#include "tests/text_replace.h"

#include <string>

#include "model_test_support.h"

namespace moesim::models {
namespace {

// A valid GQA MoE model; lines are numbered in the comments for the error tests.
const std::string kModel =
    "name: m\n"                    // 1
    "layers: 4\n"                  // 2
    "hidden: 256\n"                // 3
    "vocab: 1024\n"                // 4
    "attention:\n"                 // 5
    "  kind: gqa\n"                // 6
    "  heads: 8\n"                 // 7
    "  kv_heads: 2\n"              // 8
    "  head_dim: 32\n"             // 9
    "mlp: {intermediate: 1024}\n"  // 10
    "moe:\n"                       // 11
    "  routed_experts: 16\n"       // 12
    "  top_k: 2\n"                 // 13
    "  intermediate: 128\n"        // 14
    "  first_k_dense: 1\n";        // 15

std::string error_of(const std::string& text) {
  return moesim::testing::thrown_message<ModelError>([&] { load_model_yaml(text, "m.yaml"); });
}

using moesim::testing::replace;

TEST(ModelYaml, ReadsForwardNumerics) {
  const ModelSpec d = load_model_yaml(kModel, "m.yaml");
  EXPECT_EQ(d.norm_eps, 1e-6);
  EXPECT_EQ(d.rope.theta, 10000);
  EXPECT_FALSE(d.rope.interleaved);
  EXPECT_EQ(d.rope.yarn_factor, 1);
  EXPECT_EQ(d.qk_norm, QkNorm::kNone);
  EXPECT_FALSE(d.qkv_bias);
  EXPECT_TRUE(d.norm_top_k);
  EXPECT_EQ(d.routed_scaling, 1);
  EXPECT_FALSE(d.shared_expert_gate);
  std::string text = replace(kModel, "vocab: 1024\n",
                             "vocab: 1024\nnorm_eps: 1.0e-5\n"
                             "rope: {theta: 500000, interleaved: true, yarn: {factor: 8, original_context: 2048, "
                             "beta_fast: 16, mscale_all_dim: 0.5, truncate: false}}\n");
  text = replace(text, "  head_dim: 32\n", "  head_dim: 32\n  qk_norm: full\n  qkv_bias: true\n");
  text += "  normalize_top_k: false\n  routed_scaling: 2.5\n  shared_experts: 1\n  shared_expert_gate: true\n";
  const ModelSpec m = load_model_yaml(text, "m.yaml");
  EXPECT_EQ(m.norm_eps, 1e-5);
  EXPECT_EQ(m.rope.theta, 500000);
  EXPECT_TRUE(m.rope.interleaved);
  EXPECT_EQ(m.rope.yarn_factor, 8);
  EXPECT_EQ(m.rope.yarn_original_context, 2048);
  EXPECT_EQ(m.rope.yarn_beta_fast, 16);
  EXPECT_EQ(m.rope.yarn_beta_slow, 1);
  EXPECT_EQ(m.rope.yarn_mscale, 1);
  EXPECT_EQ(m.rope.yarn_mscale_all_dim, 0.5);
  EXPECT_FALSE(m.rope.yarn_truncate);
  EXPECT_EQ(m.qk_norm, QkNorm::kFull);
  EXPECT_TRUE(m.qkv_bias);
  EXPECT_FALSE(m.norm_top_k);
  EXPECT_EQ(m.routed_scaling, 2.5);
  EXPECT_TRUE(m.shared_expert_gate);
}

TEST(ModelYaml, ForwardNumericsErrors) {
  EXPECT_EQ(error_of(replace(kModel, "vocab: 1024\n", "vocab: 1024\nrope: {theta: 0}\n")),
            "m.yaml:5:15: rope.theta: expected a number > 1, got 0");
  EXPECT_EQ(error_of(replace(kModel, "vocab: 1024\n", "vocab: 1024\nrope: {yarn: {factr: 2}}\n")),
            "m.yaml:5:15: rope.yarn.factr: unknown key 'factr'; did you mean 'factor'?");
  EXPECT_EQ(error_of(replace(kModel, "  head_dim: 32\n", "  head_dim: 32\n  qk_norm: all\n")),
            "m.yaml:10:12: attention.qk_norm: unknown qk_norm 'all'; did you mean 'full'? (valid: none, head, full)");
  EXPECT_EQ(error_of(kModel + "  shared_expert_gate: true\n"),
            "m.yaml:16:23: moe.shared_expert_gate: a shared-expert gate needs shared_experts >= 1");
  EXPECT_EQ(error_of(kModel + "  routed_scaling: -1\n"),
            "m.yaml:16:19: moe.routed_scaling: expected a number > 0, got -1");
  EXPECT_EQ(error_of(replace(kModel, "vocab: 1024\n", "vocab: 1024\nrope: {partial: 0}\n")),
            "m.yaml:5:17: rope.partial: expected a fraction in (0, 1], got 0");
}

TEST(ModelYaml, PartialRotary) {
  EXPECT_EQ(load_model_yaml(kModel, "m.yaml").rotary_dim(), 32);
  const ModelSpec m =
      load_model_yaml(replace(kModel, "vocab: 1024\n", "vocab: 1024\nrope: {partial: 0.25}\n"), "m.yaml");
  EXPECT_EQ(m.rope.partial, 0.25);
  EXPECT_EQ(m.rotary_dim(), 8);
  // MLA rotates its decoupled RoPE key: partial is refused there, at the key.
  const std::string mla =
      "name: m\nlayers: 2\nhidden: 64\nvocab: 10\nrope: {partial: 0.5}\n"
      "attention: {kind: mla, heads: 2, q_lora_rank: 0, kv_lora_rank: 16, qk_nope_head_dim: 8, "
      "qk_rope_head_dim: 4, v_head_dim: 8}\nmlp: {intermediate: 32}\n";
  EXPECT_EQ(error_of(mla),
            "m.yaml:5:17: rope.partial: mla attention turns its qk_rope_head_dim; partial is for mha/gqa heads");
}

// Found by fuzzing: yaml-cpp 0.7's LoadAll never returns (allocating without bound) on a lone
// ',' at the top level; the reader now reports it as a syntax error at the comma.
TEST(ModelYaml, StrayTopLevelCommaIsASyntaxErrorNotAHang) {
  EXPECT_EQ(error_of(","), "m.yaml:1:1: YAML syntax error: unexpected character (the parser cannot go on from here)");
  EXPECT_EQ(error_of(",'':"),
            "m.yaml:1:1: YAML syntax error: unexpected character (the parser cannot go on from here)");
  EXPECT_EQ(error_of("name: x\n,\n"), "m.yaml:2:1: YAML syntax error: end of map not found");  // not affected
}

// Input limits: a billion layers (found by fuzzing: the reader's per-layer walks then ran for
// minutes) or a million experts are refused where they are written.
TEST(ModelYaml, AbsurdLayerAndExpertCountsAreRefused) {
  EXPECT_EQ(error_of(replace(kModel, "layers: 4", "layers: 1000000000")),
            "m.yaml:2:9: layers: expected an integer in [1, 4096], got 1000000000");
  EXPECT_EQ(error_of(replace(kModel, "routed_experts: 16", "routed_experts: 1000000")),
            "m.yaml:12:19: moe.routed_experts: expected an integer in [1, 65535], got 1000000");
}

TEST(ModelYaml, ReadsAValidModel) {
  const ModelSpec m = load_model_yaml(kModel, "m.yaml");
  EXPECT_EQ(m.name, "m");
  EXPECT_EQ(m.source, "m.yaml");  // no source key: the file names itself
  EXPECT_EQ(m.attention, AttentionKind::kGqa);
  EXPECT_EQ(m.kv_heads, 2);
  EXPECT_EQ(m.first_k_dense, 1);
  EXPECT_EQ(m.num_moe_layers(), 3);
  EXPECT_EQ(m.expert_groups, 1);
  EXPECT_EQ(m.top_groups, 1);
  EXPECT_EQ(m.scoring, RouterScoring::kSoftmax);
  EXPECT_EQ(m.weight_dtype, DType::kBf16);
  EXPECT_FALSE(m.expert_weight_dtype.has_value());
}

TEST(ModelYaml, UnknownKeySuggestsTheClosestOne) {
  EXPECT_EQ(error_of(replace(kModel, "  top_k: 2\n", "  top_kk: 2\n")),
            "m.yaml:13:3: moe.top_kk: unknown key 'top_kk'; did you mean 'top_k'?");
  EXPECT_EQ(error_of(kModel + "colour: blue\n"),
            "m.yaml:16:1: colour: unknown key 'colour' (valid keys: name, description, source, layers, hidden, "
            "vocab, tie_embeddings, mtp_layers, norm_eps, rope, attention, mlp, moe, dtypes)");
}

TEST(ModelYaml, WrongTypeNamesTheValue) {
  EXPECT_EQ(error_of(replace(kModel, "layers: 4", "layers: many")),
            "m.yaml:2:9: layers: expected an integer, got 'many'");
  EXPECT_EQ(error_of(replace(kModel, "  heads: 8", "  heads: [8]")),
            "m.yaml:7:10: attention.heads: expected an integer, got a list");
  EXPECT_EQ(error_of(kModel + "tie_embeddings: maybe\n"),
            "m.yaml:16:17: tie_embeddings: expected true or false, got 'maybe'");
  EXPECT_EQ(
      error_of(kModel + "dtypes: {weights: fp88}\n"),
      "m.yaml:16:19: dtypes.weights: unknown dtype 'fp88'; did you mean 'fp8'? (valid: mxfp4, nvfp4, fp8, int8, bf16, "
      "fp16, fp32)");
}

TEST(ModelYaml, OutOfRangeValues) {
  EXPECT_EQ(error_of(replace(kModel, "hidden: 256", "hidden: 0")),
            "m.yaml:3:9: hidden: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of(replace(kModel, "  top_k: 2", "  top_k: 17")),
            "m.yaml:13:10: moe.top_k: expected an integer in [1, 16], got 17");
}

TEST(ModelYaml, MissingRequiredKeys) {
  EXPECT_EQ(error_of(replace(kModel, "hidden: 256\n", "")), "m.yaml:1:1: missing required key 'hidden'");
  EXPECT_EQ(error_of(replace(kModel, "  kv_heads: 2\n", "")), "m.yaml:6:3: attention: missing required key 'kv_heads'");
  EXPECT_EQ(error_of(replace(kModel, "mlp: {intermediate: 1024}\n", "")),
            "m.yaml:1:1: mlp: missing required key 'intermediate' (1 of the 4 layers have a dense MLP)");
}

TEST(ModelYaml, InconsistentShapes) {
  EXPECT_EQ(error_of(replace(kModel, "  kv_heads: 2", "  kv_heads: 3")),
            "m.yaml:8:13: attention.kv_heads: heads (8) must be a multiple of kv_heads (3)");
  EXPECT_EQ(error_of(replace(kModel, "  head_dim: 32\n", "  head_dim: 32\n  kv_lora_rank: 512\n")),
            "m.yaml:10:17: attention.kv_lora_rank: only for mla attention");
  EXPECT_EQ(error_of(kModel + "  groups: 3\n"),
            "m.yaml:16:11: moe.groups: routed_experts (16) must be a multiple of groups (3)");
  EXPECT_EQ(error_of(kModel + "  groups: 8\n  top_groups: 0\n"),
            "m.yaml:17:15: moe.top_groups: expected an integer in [1, 8], got 0");
}

TEST(ModelYaml, SyntaxErrorsAndDuplicates) {
  EXPECT_EQ(error_of("name: m\nlayers: [4\n"), "m.yaml:3:1: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(error_of(kModel + "layers: 5\n"),
            "m.yaml:16:1: layers: duplicate key 'layers' (first at line 2, column 1)");
}

TEST(ModelYaml, WindowsSinksAndExpertDtype) {
  const ModelSpec m =
      load_model_yaml(replace(kModel, "  head_dim: 32\n",
                              "  head_dim: 32\n  window: {size: 64, kind: chunked, full_every: 4}\n  sinks: true\n") +
                          "dtypes: {weights: bf16, experts: mxfp4}\nmtp_layers: 2\ntie_embeddings: true\n",
                      "m.yaml");
  EXPECT_EQ(m.window.size, 64);
  EXPECT_EQ(m.window.kind, WindowKind::kChunked);
  EXPECT_EQ(m.window.full_every, 4);
  EXPECT_TRUE(m.attention_sinks);
  EXPECT_EQ(m.expert_dtype(), DType::kMxfp4);
  EXPECT_EQ(m.weight_dtype, DType::kBf16);
  EXPECT_EQ(m.mtp_layers, 2);
  EXPECT_TRUE(m.tie_embeddings);
  EXPECT_EQ(error_of(replace(kModel, "  head_dim: 32\n", "  head_dim: 32\n  window: {size: 64, kind: slidng}\n")),
            "m.yaml:10:28: attention.window.kind: unknown window kind 'slidng'; did you mean 'sliding'? (valid: "
            "sliding, chunked)");
}

TEST(ModelYaml, MissingFileIsAModelError) { EXPECT_THROW(load_model_file("/nonexistent/model.yaml"), ModelError); }

}  // namespace
}  // namespace moesim::models
