#include "models/layer_ops.h"

#include <gtest/gtest.h>

#include "tests/models/model_test_support.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "models/model_error.h"
#include "models/presets.h"

namespace moesim::models {
namespace {

using moesim::models::test::preset;

std::map<std::string, WeightMatmul> by_name(const std::vector<WeightMatmul>& ops) {
  std::map<std::string, WeightMatmul> out;
  for (const auto& op : ops) out[std::string(op.name)] = op;
  return out;
}

// DeepSeek-V3 technical report (arXiv:2412.19437), §4.2: "DeepSeek-V3 comprises 671B total
// parameters, of which 37B are activated for each token" (main model, without the 14B MTP module).
TEST(ParameterCount, DeepSeekV3TotalsMatchPublishedCounts) {
  const ParameterCount p = count_parameters(preset("deepseek-v3"));
  const double total = static_cast<double>(p.total());
  const double activated = static_cast<double>(p.activated);
  EXPECT_NEAR(total / 671e9, 1.0, 0.01) << total;
  // "37B" is published to two significant figures, so the true count lies in [36.5 B, 37.5 B]
  // (±1.35 %); a 1 % band around a rounded figure would reject counts the report rounds to 37.
  EXPECT_NEAR(activated, 37e9, 0.5e9) << activated;
}

TEST(ParameterCount, ComponentsFollowTheConfig) {
  const ModelSpec m = preset("deepseek-v3");
  const ParameterCount p = count_parameters(m);
  const std::int64_t h = m.hidden;
  // SwiGLU expert: gate and up [h × inter] plus down [inter × h].
  const std::int64_t expert = 3 * h * m.moe_intermediate;
  EXPECT_EQ(expert_params(m), expert);
  EXPECT_EQ(p.routed_experts, expert * m.routed_experts * 58);
  EXPECT_EQ(p.shared_experts, expert * m.shared_experts * 58);
  EXPECT_EQ(p.dense_mlp, 3 * h * m.dense_intermediate * 3);
  EXPECT_EQ(p.routers, h * m.routed_experts * 58);
  EXPECT_EQ(p.embedding, 2LL * m.vocab * h);  // untied input embedding and LM head
  EXPECT_EQ(p.total(), p.attention + p.dense_mlp + p.routed_experts + p.shared_experts + p.routers + p.embedding);
}

TEST(ParameterCount, ActivatedCountsTopKExpertsAndOneEmbeddingRow) {
  const ModelSpec m = preset("deepseek-v3");
  const ParameterCount p = count_parameters(m);
  // A token runs every attention and dense block, the shared experts, the routers, its top-k
  // routed experts in each MoE layer and the LM head; it reads one row of the input embedding.
  const std::int64_t expected = p.attention + p.dense_mlp + p.shared_experts + p.routers +
                                expert_params(m) * m.top_k * m.num_moe_layers() +
                                static_cast<std::int64_t>(m.vocab) * m.hidden + m.hidden;
  EXPECT_EQ(p.activated, expected);
  EXPECT_LT(p.activated, p.total());
}

TEST(ParameterCount, DenseModelActivatesEverythingButTheUnusedEmbeddingRows) {
  ModelSpec m = preset("tiny-moe");
  m.routed_experts = 0;
  m.shared_experts = 0;
  const ParameterCount p = count_parameters(m);
  EXPECT_EQ(p.routed_experts, 0);
  EXPECT_EQ(p.routers, 0);
  EXPECT_EQ(p.total() - p.activated, static_cast<std::int64_t>(m.vocab - 1) * m.hidden);
}

TEST(AttentionProjections, MlaShapesFollowDeepSeekV2Section2) {
  const ModelSpec m = preset("deepseek-v3");
  const auto& a = m.mla;
  const auto ops = by_name(attention_projections(m));
  ASSERT_EQ(ops.size(), 5u);
  const std::int64_t h = m.hidden, heads = m.heads;
  // Query: down to the q latent, then up to every head's [nope | rope] query.
  EXPECT_EQ(ops.at("q_a_proj").k, h);
  EXPECT_EQ(ops.at("q_a_proj").n, a.q_lora_rank);
  EXPECT_EQ(ops.at("q_b_proj").k, a.q_lora_rank);
  EXPECT_EQ(ops.at("q_b_proj").n, heads * (a.qk_nope_head_dim + a.qk_rope_head_dim));
  // KV: down to the cached width (latent + shared rope key), latent up to per-head K_nope and V.
  EXPECT_EQ(ops.at("kv_a_proj").k, h);
  EXPECT_EQ(ops.at("kv_a_proj").n, m.kv_elements_per_token_per_layer());
  EXPECT_EQ(ops.at("kv_b_proj").k, a.kv_lora_rank);
  EXPECT_EQ(ops.at("kv_b_proj").n, heads * (a.qk_nope_head_dim + a.v_head_dim));
  // Output: concatenated per-head values back to hidden.
  EXPECT_EQ(ops.at("o_proj").k, heads * a.v_head_dim);
  EXPECT_EQ(ops.at("o_proj").n, h);
}

TEST(AttentionProjections, MlaWithoutQueryLoraUsesOnePlainQueryProjection) {
  ModelSpec m = preset("deepseek-v3");
  m.mla.q_lora_rank = 0;  // DeepSeek-V2-Lite style
  const auto ops = by_name(attention_projections(m));
  EXPECT_EQ(ops.count("q_a_proj"), 0u);
  EXPECT_EQ(ops.count("q_b_proj"), 0u);
  ASSERT_EQ(ops.count("q_proj"), 1u);
  EXPECT_EQ(ops.at("q_proj").k, m.hidden);
  EXPECT_EQ(ops.at("q_proj").n, static_cast<std::int64_t>(m.heads) * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim));
}

TEST(AttentionProjections, GqaKeyAndValueUseKvHeads) {
  const ModelSpec m = preset("tiny-moe");
  const auto ops = by_name(attention_projections(m));
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops.at("q_proj").n, static_cast<std::int64_t>(m.heads) * m.head_dim);
  EXPECT_EQ(ops.at("k_proj").n, static_cast<std::int64_t>(m.kv_heads) * m.head_dim);
  EXPECT_EQ(ops.at("v_proj").n, static_cast<std::int64_t>(m.kv_heads) * m.head_dim);
  EXPECT_EQ(ops.at("o_proj").k, static_cast<std::int64_t>(m.heads) * m.head_dim);
  EXPECT_EQ(ops.at("o_proj").n, m.hidden);
}

TEST(AttentionDecode, WorkGrowsLinearlyWithKvLength) {
  for (const char* name : {"deepseek-v3", "tiny-moe"}) {
    const ModelSpec m = preset(name);
    const Work w1 = attention_decode_core(m, 1000);
    const Work w2 = attention_decode_core(m, 2000);
    const Work w3 = attention_decode_core(m, 3000);
    EXPECT_GT(w2.flops, w1.flops) << name;
    EXPECT_NEAR(w3.flops - w2.flops, w2.flops - w1.flops, 1e-9 * w3.flops) << name;
    // Reads the whole cached history of the layer.
    EXPECT_DOUBLE_EQ(w1.bytes, 1000 * m.kv_bytes_per_token_per_layer()) << name;
    EXPECT_DOUBLE_EQ(w3.bytes, 3 * w1.bytes) << name;
  }
}

TEST(AttentionDecode, PerPositionFlopsAreScoresPlusValues) {
  // GQA: every head takes a head_dim dot product (QK^T) and a head_dim axpy (PV) per position.
  const ModelSpec g = preset("tiny-moe");
  const double g_slope = attention_decode_core(g, 101).flops - attention_decode_core(g, 100).flops;
  EXPECT_DOUBLE_EQ(g_slope, 2.0 * g.heads * g.head_dim * 2);
  // Absorbed MLA: scores over [latent | rope key], values are the latent.
  const ModelSpec d = preset("deepseek-v3");
  const double d_slope = attention_decode_core(d, 101).flops - attention_decode_core(d, 100).flops;
  EXPECT_NEAR(d_slope,
              2.0 * d.heads * (d.mla.kv_lora_rank + d.mla.qk_rope_head_dim) + 2.0 * d.heads * d.mla.kv_lora_rank,
              1e-6 * d_slope);
}

TEST(AttentionPrefill, CausalChunkEqualsItsTokensDecodedOneByOne) {
  // For MHA/GQA the attention core of a causal chunk is the sum, over its tokens, of one query
  // attending to every earlier position and itself.
  const ModelSpec m = preset("tiny-moe");
  for (auto [past, chunk] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {0, 37}, {100, 1}, {100, 64}}) {
    double flops = 0;
    for (std::int64_t i = 1; i <= chunk; ++i) flops += attention_decode_core(m, past + i).flops;
    EXPECT_NEAR(attention_prefill_core(m, past, chunk).flops, flops, 1e-9 * flops) << past << "+" << chunk;
  }
}

TEST(AttentionPrefill, ChunkingDoesNotChangeGqaCoreFlops) {
  const ModelSpec m = preset("tiny-moe");
  const double whole = attention_prefill_core(m, 0, 1024).flops;
  const double split = attention_prefill_core(m, 0, 256).flops + attention_prefill_core(m, 256, 512).flops +
                       attention_prefill_core(m, 768, 256).flops;
  EXPECT_NEAR(split, whole, 1e-9 * whole);
}

TEST(AttentionPrefill, ChunkAfterPastCostsMoreThanTheSameChunkAlone) {
  for (const char* name : {"deepseek-v3", "tiny-moe"}) {
    const ModelSpec m = preset(name);
    const Work alone = attention_prefill_core(m, 0, 512);
    const Work after = attention_prefill_core(m, 4096, 512);
    EXPECT_GT(after.flops, alone.flops) << name;
    EXPECT_GT(after.bytes, alone.bytes) << name;
    // Bytes: at least the cached context must be read.
    EXPECT_GE(after.bytes, (4096 + 512) * m.kv_bytes_per_token_per_layer()) << name;
  }
}

TEST(AllToAllPayload, DispatchAndCombineBytesPerToken) {
  const ModelSpec d = preset("deepseek-v3");
  ASSERT_EQ(d.dispatch_dtype, DType::kFp8);
  // FP8 hidden state + one FP32 scale per 128 values + top-k (int32 id, FP32 weight).
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(d), d.hidden * 1.0 + d.hidden / 128.0 * 4 + d.top_k * 8.0);
  EXPECT_DOUBLE_EQ(combine_bytes_per_token(d), d.hidden * bytes_per_element(d.combine_dtype));

  const ModelSpec t = preset("tiny-moe");
  ASSERT_EQ(t.dispatch_dtype, DType::kBf16);
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(t), t.hidden * 2.0 + t.top_k * 8.0);  // no scales
  EXPECT_DOUBLE_EQ(combine_bytes_per_token(t), t.hidden * 2.0);
}

TEST(AllToAllPayload, Fp8DispatchIsAboutHalfOfBf16) {
  ModelSpec m = preset("deepseek-v3");
  m.dispatch_dtype = DType::kBf16;
  const double bf16 = dispatch_bytes_per_token(m);
  m.dispatch_dtype = DType::kFp8;
  const double fp8 = dispatch_bytes_per_token(m);
  EXPECT_LT(fp8, bf16);
  EXPECT_GT(fp8, bf16 / 2);  // scales and routing metadata do not shrink
}

// DeepSeek-V3 decode, per token (BF16 activations and KV latent, FP8 projections): two fused
// add+RMSNorms over 7,168 values (read x and residual, write both), the q (1,536) and kv (512)
// latent norms, RoPE on 128 query heads and the shared key (64 dims each), the 576-value latent
// written to the cache, and one FP8 quantisation per distinct projection input (7,168; 1,536;
// 512; 128 x 128), each read in BF16 and written as bytes plus one FP32 scale per 128.
TEST(StreamOps, DeepSeekV3AttentionKernelsAndTheirBytes) {
  const auto m = preset("deepseek-v3");
  std::map<std::string, std::vector<double>> ops;
  for (const auto& op : attention_stream_ops(m)) ops[std::string(op.name)].push_back(op.bytes_per_token);
  auto quant = [](double w) { return 2 * w + w + w / 128 * 4; };
  EXPECT_EQ(ops["input_norm"], (std::vector<double>{4 * 7168 * 2.0}));
  EXPECT_EQ(ops["post_attention_norm"], (std::vector<double>{4 * 7168 * 2.0}));
  EXPECT_EQ(ops["q_a_norm"], (std::vector<double>{2 * 1536 * 2.0}));
  EXPECT_EQ(ops["kv_a_norm"], (std::vector<double>{2 * 512 * 2.0}));
  EXPECT_EQ(ops["rope"], (std::vector<double>{2 * 129 * 64 * 2.0}));
  EXPECT_EQ(ops["kv_cache_write"], (std::vector<double>{576 * 4.0}));
  EXPECT_EQ(ops["activation_quant"], (std::vector<double>{quant(7168), quant(1536), quant(512), quant(16384)}));
  EXPECT_EQ(ops.size(), 7u);
  std::map<std::string, double> moe;
  for (const auto& op : moe_stream_ops(m)) moe[std::string(op.name)] = op.bytes_per_token;
  EXPECT_EQ(moe["topk"], 4.0 * 256 + 8.0 * 8);
  EXPECT_EQ(moe["moe_output_add"], 3.0 * 7168 * 2);
}

// Which attention work follows the core in a decode step (the two attention stages of the
// two-batch decode schedule): MLA's o-projection with its input's quantisation and the
// post-attention norm, and W_UV, half of kv_b_proj (v_head_dim 128 of nope 128 + v 128); GQA's
// o-projection. Everything else runs before the core.
TEST(AttentionProjections, SplitAroundTheCoreForTheDecodeSchedule) {
  const auto m = preset("deepseek-v3");
  const auto ops = by_name(attention_projections(m));
  EXPECT_EQ(ops.at("q_a_proj").after_core, 0.0);
  EXPECT_EQ(ops.at("q_b_proj").after_core, 0.0);
  EXPECT_EQ(ops.at("kv_a_proj").after_core, 0.0);
  EXPECT_DOUBLE_EQ(ops.at("kv_b_proj").after_core, 0.5);
  EXPECT_EQ(ops.at("o_proj").after_core, 1.0);
  std::map<std::string, std::vector<double>> after;
  for (const auto& op : attention_stream_ops(m)) after[std::string(op.name)].push_back(op.after_core);
  EXPECT_EQ(after["input_norm"], (std::vector<double>{0}));
  EXPECT_EQ(after["post_attention_norm"], (std::vector<double>{1}));
  EXPECT_EQ(after["rope"], (std::vector<double>{0}));
  EXPECT_EQ(after["kv_cache_write"], (std::vector<double>{0}));
  // Inputs 7,168 (q_a, kv_a), 1,536 (q_b), 512 (kv_b: W_UK reads it before the core), 16,384 (o).
  EXPECT_EQ(after["activation_quant"], (std::vector<double>{0, 0, 0, 1}));
  const auto gqa = by_name(attention_projections(preset("qwen3-235b-a22b")));
  for (const char* name : {"q_proj", "k_proj", "v_proj"}) EXPECT_EQ(gqa.at(name).after_core, 0.0) << name;
  EXPECT_EQ(gqa.at("o_proj").after_core, 1.0);
}

// A BF16 GQA model quantises nothing; Qwen3 normalises q and k per head before RoPE, and its
// cache holds K and V of the 4 KV heads.
TEST(StreamOps, GqaModelsNormRotateAndCacheTheirHeads) {
  const auto m = preset("qwen3-235b-a22b");
  std::map<std::string, double> ops;
  for (const auto& op : attention_stream_ops(m)) ops[std::string(op.name)] += op.bytes_per_token;
  const double q = 64 * 128.0, k = 4 * 128.0;
  EXPECT_EQ(ops.count("activation_quant"), 0u);
  EXPECT_EQ(ops["qk_norm"], 2 * (q + k) * 2);
  EXPECT_EQ(ops["rope"], 2 * (q + k) * 2);
  EXPECT_EQ(ops["kv_cache_write"], 2 * k * 4);
  EXPECT_EQ(preset("mixtral-8x7b").qk_norm, QkNorm::kNone);
  for (const auto& op : attention_stream_ops(preset("mixtral-8x7b"))) EXPECT_NE(op.name, "qk_norm");
}

// INT8 W8A8 (DeepSeek requantised for Ascend, or INT8 serving on Hopper): every projection's input
// is quantised to INT8 with one FP32 scale per token first, as FP8 inputs are with a scale per 128.
TEST(StreamOps, Int8WeightsQuantiseTheirActivationsPerToken) {
  auto m = preset("deepseek-v3");
  m.weight_dtype = DType::kInt8;
  EXPECT_TRUE(quantises_activations(DType::kInt8));
  EXPECT_FALSE(quantises_activations(DType::kBf16));
  EXPECT_DOUBLE_EQ(activation_quant_bytes(m, 7168, DType::kInt8), 7168 * 2.0 + 7168 + 4);
  EXPECT_DOUBLE_EQ(activation_quant_bytes(m, 7168, DType::kFp8), 7168 * 2.0 + 7168 + 56 * 4);
  int quant = 0;
  for (const auto& op : attention_stream_ops(m)) quant += op.name == "activation_quant";
  EXPECT_EQ(quant, 4);  // the hidden state (q_a, kv_a), the q and kv latents (q_b, kv_b), the o-projection's input
  auto bf16 = m;
  bf16.weight_dtype = DType::kBf16;
  EXPECT_EQ(layer_kernels(m, 5, 2), layer_kernels(bf16, 5, 2) + 4 + 2 + 2);  // attention, shared, experts' MLPs
}

TEST(LayerOps, DispatchPayloadFormatsAreResolvedOnceByName) {
  for (const auto& f : payload_formats()) EXPECT_EQ(payload_format(f.name), f.value) << f.name;
  try {
    payload_format("fp6");
    ADD_FAILURE() << "an unknown format was found";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "unknown dispatch payload 'fp6' (valid: model, bf16, fp8, mxfp8, nvfp4)");
  }
  ModelSpec m = *find_model_preset("deepseek-v3");
  const double routing = m.top_k * 8.0;
  // TensorRT-LLM's NVLinkOneSided blog: 7,392 (MXFP8) and 4,032 (NVFP4) payload bytes per token at
  // hidden 7168.
  ASSERT_EQ(m.hidden, 7168);
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(m, PayloadFormat::kMxfp8) - routing, 7392);
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(m, PayloadFormat::kNvfp4) - routing, 4032);
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(m, PayloadFormat::kModel), dispatch_bytes_per_token(m));
}

// The one-by-one sum attention_decode_total must equal, for every preset it applies to.
Work summed_one_by_one(const ModelSpec& m, const std::vector<std::int64_t>& lens) {
  Work total;
  for (const std::int64_t len : lens) {
    const Work w = attention_decode_core(m, len);
    total.flops += w.flops;
    total.bytes += w.bytes;
  }
  return total;
}

// Where the closed form is given it is the loop's value to the bit, on every preset and on batches
// of every size up to a long-context one; it is given for the dense and MLA presets.
TEST(AttentionDecodeTotal, EqualsTheOneByOneSumToTheBit) {
  std::mt19937_64 rng(7);
  int given = 0;
  for (const auto& info : model_presets()) {
    const ModelSpec m = *find_model_preset(info.name);
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{700}}) {
      std::vector<std::int64_t> lens(n);
      for (auto& len : lens) len = static_cast<std::int64_t>(rng() % 131072);
      const auto total = attention_decode_total(m, lens);
      if (!total) continue;
      ++given;
      const Work loop = summed_one_by_one(m, lens);
      EXPECT_EQ(total->flops, loop.flops) << info.name << " n=" << n;
      EXPECT_EQ(total->bytes, loop.bytes) << info.name << " n=" << n;
    }
  }
  EXPECT_GT(given, 0);
  EXPECT_TRUE(attention_decode_total(preset("deepseek-v3"), std::vector<std::int64_t>{1000, 2000}).has_value());
}

// Not given where the one-by-one sum could round differently: DSA's sparse core (not affine),
// bytes per position that are not whole (FP4 caches with their scales), or totals from 2^53 on.
TEST(AttentionDecodeTotal, IsNotGivenWhereTheSumCouldRoundOtherwise) {
  const std::vector<std::int64_t> lens{1000, 2000, 3000};
  ModelSpec fp4 = preset("deepseek-v3");
  fp4.kv_dtype = DType::kNvfp4;  // 0.5625 bytes per element: 575 of them are not whole bytes
  fp4.mla.kv_lora_rank = 511;
  ASSERT_NE(fp4.kv_bytes_per_token_per_layer(), std::floor(fp4.kv_bytes_per_token_per_layer()));
  EXPECT_FALSE(attention_decode_total(fp4, lens).has_value());
  ModelSpec sparse = preset("deepseek-v3");
  sparse.sparse.top_k = 2048;
  sparse.sparse.index_head_dim = 128;
  sparse.sparse.index_heads = 64;
  EXPECT_FALSE(attention_decode_total(sparse, lens).has_value());
  const std::vector<std::int64_t> huge(4096, std::int64_t{1} << 40);
  EXPECT_FALSE(attention_decode_total(preset("deepseek-v3"), huge).has_value());
  EXPECT_FALSE(attention_decode_total(preset("deepseek-v3"), std::vector<std::int64_t>{-1}).has_value());
}

}  // namespace
}  // namespace moesim::models
