// Gated DeltaNet linear attention (Qwen3-Next): a linear layer caches no tokens but holds a fixed
// state per sequence, so a request's memory grows only with its full-attention layers; its decode
// core reads and writes that state whatever the context, and its prefill is linear in the chunk.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <string>

#include "model_test_support.h"
#include "models/functional/decoder.h"
#include "models/functional/weights_random.h"
#include "models/layer_ops.h"
#include "models/linear_attention.h"
#include "models/memory.h"
#include "models/model_error.h"
#include "models/model_yaml.h"
#include "models/parallel_shard.h"

namespace moesim::models {
namespace {

using test::preset;

TEST(LinearAttention, Qwen3NextLayersAndState) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  ASSERT_TRUE(m.linear.enabled());
  EXPECT_EQ(m.num_linear_layers(), 36);
  EXPECT_EQ(m.num_token_caching_layers(), 12);
  EXPECT_TRUE(m.is_linear_layer(0));
  EXPECT_TRUE(m.is_linear_layer(2));
  EXPECT_FALSE(m.is_linear_layer(3));  // (3 + 1) % 4 == 0: gated full attention
  EXPECT_FALSE(m.is_linear_layer(47));
  // Per layer: 32 value heads of a 128 x 128 FP32 state, plus 3 kept inputs of the 8,192 q/k/v
  // convolution channels in BF16.
  EXPECT_DOUBLE_EQ(m.linear_state_bytes_per_layer(), 32.0 * 128 * 128 * 4 + 8192.0 * 3 * 2);
  EXPECT_DOUBLE_EQ(m.state_bytes_per_sequence(), 36 * m.linear_state_bytes_per_layer());
  // The KV a token adds: K and V of 2 heads x 256 in the 12 full-attention layers only.
  EXPECT_DOUBLE_EQ(m.kv_bytes_per_token(), 12.0 * 2 * 2 * 256 * 2);
}

TEST(LinearAttention, PerSequenceMemoryIsFlatInContextForTheLinearLayers) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const double state = m.state_bytes_per_sequence();
  // One token already holds the whole state; every further token adds only full-attention KV.
  EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(1), state + m.kv_bytes_per_token());
  for (const std::int64_t t : {4096, 32768, 262144})
    EXPECT_DOUBLE_EQ(m.kv_bytes_for_context(t), state + static_cast<double>(t) * m.kv_bytes_per_token()) << t;
  EXPECT_EQ(m.kv_bytes_for_context(0), 0.0);
  // Were every layer full attention, 256K tokens would take four times the KV.
  ModelSpec full = m;
  full.linear = {};
  EXPECT_DOUBLE_EQ(full.kv_bytes_for_context(262144), 4 * 262144.0 * m.kv_bytes_per_token());
  EXPECT_LT(m.kv_bytes_for_context(262144), 0.3 * full.kv_bytes_for_context(262144));
}

TEST(LinearAttention, DecodeCoreIsTheSameAtAnyContext) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const Work one = linear_attention_decode_core(m);
  // Reads the 2 MiB state and writes it back: the state dominates the bytes.
  const double state = 32.0 * 128 * 128 * 4;
  EXPECT_GT(one.bytes, 2 * state);
  EXPECT_LT(one.bytes, 2.1 * state);
  // Over all layers, the growth from 4K to 128K context is the 12 full-attention layers' alone.
  const Work a = attention_decode_all_layers(m, 4096), b = attention_decode_all_layers(m, 131072);
  const Work fa = attention_decode_core(m, 4096), fb = attention_decode_core(m, 131072);
  EXPECT_NEAR(b.bytes - a.bytes, 12 * (fb.bytes - fa.bytes), 1e-6 * b.bytes);
  EXPECT_NEAR(b.flops - a.flops, 12 * (fb.flops - fa.flops), 1e-6 * b.flops);
  EXPECT_DOUBLE_EQ(a.bytes - 12 * fa.bytes, 36 * one.bytes);
  // Verification of 3 draft tokens: the state is read once and written after each token, the
  // kept convolution window (3 inputs of 8,192 BF16 channels) read and written once.
  const Work verify = linear_attention_decode_core(m, 4);
  const double window = 2.0 * 8192 * 3 * 2;
  EXPECT_DOUBLE_EQ(verify.bytes - one.bytes, 3 * state + 3 * (one.bytes - 2 * state - window));
}

TEST(LinearAttention, PrefillIsLinearInTheChunkAndCarriesTheState) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const Work c4 = linear_attention_prefill_core(m, 0, 4096), c8 = linear_attention_prefill_core(m, 0, 8192);
  EXPECT_DOUBLE_EQ(c8.flops, 2 * c4.flops);  // whole chunks of 64: exactly linear
  // A chunk after 60K processed tokens costs what one at the start does, plus reading the state.
  const Work later = linear_attention_prefill_core(m, 61440, 4096);
  EXPECT_DOUBLE_EQ(later.flops, c4.flops);
  EXPECT_DOUBLE_EQ(later.bytes - c4.bytes, 32.0 * 128 * 128 * 4);
  // A partial chunk is padded to 64 tokens in the chunked kernels.
  EXPECT_DOUBLE_EQ(linear_attention_prefill_core(m, 0, 1).flops - linear_attention_prefill_core(m, 0, 64).flops,
                   2.0 * m.linear.conv_dim() * m.linear.conv_kernel * (1 - 64));
  // Full attention over the same 8K prompt grows quadratically; at 64K the 12 full layers' cores
  // outweigh the 36 linear layers' by far.
  const Work full = attention_prefill_core(m, 0, 65536), linear = linear_attention_prefill_core(m, 0, 65536);
  EXPECT_GT(12 * full.flops, 3 * 36 * linear.flops);
}

TEST(LinearAttention, ParametersMatchTheCard) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const ParameterCount p = count_parameters(m);
  // Card: 80 B in total, 79 B without embeddings, 3 B activated ("3B": one significant figure,
  // counting what the blocks activate, without the embedding and head).
  const double table = static_cast<double>(m.vocab) * m.hidden;
  EXPECT_NEAR(static_cast<double>(p.total()) / 80e9, 1.0, 0.01) << p.total();
  EXPECT_NEAR((static_cast<double>(p.total()) - 2 * table) / 79e9, 1.0, 0.01);
  const double blocks = static_cast<double>(p.activated) - table - m.hidden;
  EXPECT_GE(blocks, 2.5e9);
  EXPECT_LT(blocks, 3.5e9);
  // A linear layer: in_proj_qkvz [2048 -> 2 x 2048 + 2 x 4096], in_proj_ba [2048 -> 64],
  // out_proj [4096 -> 2048], the 8,192-channel convolution of 4 taps.
  EXPECT_EQ(linear_attention_params(m), 2048LL * 12288 + 2048LL * 64 + 4096LL * 2048 + 8192LL * 4);
  // A gated full-attention layer: q_proj twice as wide (queries and gate).
  EXPECT_EQ(attention_projections(m)[0].n, 2 * 16 * 256);
}

TEST(LinearAttention, TensorParallelismSplitsTheHeadsAndTheState) {
  const ModelSpec m = preset("qwen3-next-80b-a3b");
  const ModelSpec s = attention_shard(m, 2);
  EXPECT_EQ(s.linear.key_heads, 8);
  EXPECT_EQ(s.linear.value_heads, 16);
  EXPECT_NEAR(s.linear_state_bytes_per_layer(), m.linear_state_bytes_per_layer() / 2, 1e-9);
  EXPECT_EQ(attention_tp_problem(m, 32),
            "attention tp 32 does not divide the 16 attention heads of qwen3-next-80b-a3b");
  MemoryOptions o;
  o.ep = 8;
  o.capacity_bytes = 141e9;
  const MemoryPlan one = plan_rank_memory(m, o);
  EXPECT_DOUBLE_EQ(one.state_bytes_per_request, m.state_bytes_per_sequence());
  EXPECT_DOUBLE_EQ(one.kv_bytes_per_token, m.kv_bytes_per_token());
  EXPECT_EQ(one.state_tokens_per_request(), 3144);  // ceil(73.7 MiB / 24 KiB)
  o.attention_tp = 2;
  EXPECT_NEAR(plan_rank_memory(m, o).state_bytes_per_request, m.state_bytes_per_sequence() / 2, 1.0);
  // A pipeline stage holds the state of its own linear layers: layers 0-11 have 9.
  o.attention_tp = 1;
  o.layer_end = 12;
  EXPECT_DOUBLE_EQ(plan_rank_memory(m, o).state_bytes_per_request, 9 * m.linear_state_bytes_per_layer());
  EXPECT_DOUBLE_EQ(plan_rank_memory(m, o).kv_bytes_per_token, 3 * m.kv_bytes_per_token_per_layer());
}

std::string attention_error(const std::string& attention) {
  const std::string yaml =
      "name: t\nlayers: 4\nhidden: 64\nvocab: 100\nattention:\n" + attention + "mlp: {intermediate: 128}\n";
  return moesim::testing::thrown_message<ModelError>([&] { load_model_yaml(yaml, "m.yaml"); });
}

TEST(LinearAttention, YamlRefusesWhatItCannotMean) {
  const std::string gqa = "  kind: gqa\n  heads: 4\n  kv_heads: 2\n  head_dim: 16\n";
  const std::string linear =
      "  linear: {full_every: 4, key_heads: 2, value_heads: 4, key_head_dim: 16, value_head_dim: 16}\n";
  EXPECT_EQ(attention_error(gqa + linear), "(no error)");
  EXPECT_EQ(attention_error(gqa + "  window: {size: 8}\n" + linear),
            "m.yaml:10:11: attention.window: a model with linear attention has no local windows");
  EXPECT_EQ(
      attention_error(
          gqa + "  linear: {full_every: 4, key_heads: 3, value_heads: 4, key_head_dim: 16, value_head_dim: 16}\n"),
      "m.yaml:10:54: attention.linear.value_heads: value_heads (4) must be a multiple of key_heads (3)");
  EXPECT_EQ(
      attention_error("  kind: mla\n  heads: 4\n  kv_lora_rank: 16\n  qk_nope_head_dim: 8\n  qk_rope_head_dim: 8\n"
                      "  v_head_dim: 8\n" +
                      linear),
      "m.yaml:12:11: attention.linear: only for mha/gqa attention");
  const ModelSpec m = load_model_yaml(
      "name: t\nlayers: 8\nhidden: 64\nvocab: 100\nattention:\n" + gqa + linear + "mlp: {intermediate: 128}\n",
      "m.yaml");
  EXPECT_EQ(m.num_linear_layers(), 6);
  EXPECT_EQ(m.linear.conv_kernel, 4);
  EXPECT_EQ(m.linear.state_dtype, DType::kFp32);
}

TEST(LinearAttention, FunctionalDecoderRefusesIt) {
  ModelSpec m = preset("tiny-moe");
  m.linear = {2, 2, 4, 8, 8, 4, DType::kFp32};
  try {
    functional::Decoder d(m, functional::random_weights(m));
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()),
              "tiny-moe: linear attention (Gated DeltaNet) is not run by the functional decoder");
  }
}

}  // namespace
}  // namespace moesim::models
