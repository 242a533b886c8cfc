// Sliding-window and chunked attention: which layers are local, and how windows cap attention
// work and KV-cache bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "model_test_support.h"
#include "models/layer_ops.h"
#include "models/memory.h"

namespace moesim::models {
namespace {

using test::preset;

TEST(LocalAttention, GptOssAlternatesSlidingAndFullLayers) {
  const ModelSpec m = preset("gpt-oss-120b");
  // config.json layer_types: sliding_attention on even layers, full_attention on odd ones.
  for (int i = 0; i < m.num_layers; ++i) EXPECT_EQ(m.attention_window(i), i % 2 == 0 ? 128 : 0) << i;
  EXPECT_EQ(m.num_local_layers(), 18);
}

TEST(LocalAttention, LlamaMaverickChunksThreeOfEveryFourLayers) {
  const ModelSpec m = preset("llama-4-maverick");
  // no_rope_layers default: layer i uses RoPE (chunked attention) unless (i + 1) % 4 == 0.
  for (int i = 0; i < m.num_layers; ++i) EXPECT_EQ(m.attention_window(i), (i + 1) % 4 == 0 ? 0 : 8192) << i;
  EXPECT_EQ(m.num_local_layers(), 36);
}

TEST(LocalAttention, ModelsWithoutWindowsAreFullEverywhere) {
  const ModelSpec m = preset("deepseek-v3");
  for (int i = 0; i < m.num_layers; ++i) EXPECT_EQ(m.attention_window(i), 0);
  EXPECT_EQ(effective_kv_len(m, 0, 100000), 100000);
}

TEST(LocalAttention, EffectiveKvLengthSlidesOrRestartsPerChunk) {
  const ModelSpec g = preset("gpt-oss-120b");
  EXPECT_EQ(effective_kv_len(g, 0, 50), 50);
  EXPECT_EQ(effective_kv_len(g, 0, 128), 128);
  EXPECT_EQ(effective_kv_len(g, 0, 5000), 128);
  EXPECT_EQ(effective_kv_len(g, 1, 5000), 5000);  // full layer
  const ModelSpec l = preset("llama-4-maverick");
  EXPECT_EQ(effective_kv_len(l, 0, 8192), 8192);  // last position of the first chunk
  EXPECT_EQ(effective_kv_len(l, 0, 8193), 1);     // first position of the second chunk
  EXPECT_EQ(effective_kv_len(l, 0, 20000), 20000 - 2 * 8192);
  EXPECT_EQ(effective_kv_len(l, 3, 20000), 20000);
}

TEST(LocalAttention, DecodeCostStopsGrowingAtTheWindow) {
  const ModelSpec m = preset("gpt-oss-120b");
  const Work at_window = attention_decode_core(m, 128, 0);
  const Work long_ctx = attention_decode_core(m, 100000, 0);
  EXPECT_DOUBLE_EQ(long_ctx.flops, at_window.flops);
  EXPECT_DOUBLE_EQ(long_ctx.bytes, 128 * m.kv_bytes_per_token_per_layer());
  // A full layer of the same model reads everything.
  EXPECT_DOUBLE_EQ(attention_decode_core(m, 100000, 1).bytes, 100000 * m.kv_bytes_per_token_per_layer());
  EXPECT_DOUBLE_EQ(attention_decode_core(m, 100000, 1).flops, attention_decode_core(m, 100000).flops);
}

// A causal prefill chunk is the sum, over its tokens, of one decode step each: with windows too,
// including chunks that cross a window or chunk boundary.
TEST(LocalAttention, PrefillChunkEqualsItsTokensDecodedOneByOne) {
  for (const char* name : {"gpt-oss-120b", "llama-4-maverick"}) {
    ModelSpec m = preset(name);
    m.window.size = 64;  // small windows keep the loop short
    for (auto [past, chunk] :
         {std::pair<std::int64_t, std::int64_t>{0, 10}, {0, 200}, {50, 30}, {100, 64}, {63, 130}}) {
      double flops = 0;
      for (std::int64_t i = 1; i <= chunk; ++i) flops += attention_decode_core(m, past + i, 0).flops;
      EXPECT_NEAR(attention_prefill_core(m, past, chunk, 0).flops, flops, 1e-9 * flops)
          << name << " " << past << "+" << chunk;
    }
  }
}

TEST(LocalAttention, PrefillReadsOnlyTheAttendedPrefix) {
  const ModelSpec g = preset("gpt-oss-120b");
  const double per_token = g.kv_bytes_per_token_per_layer();
  // Sliding 128: the chunk after 10,000 cached tokens reaches back 127 positions.
  EXPECT_DOUBLE_EQ(attention_prefill_core(g, 10000, 512, 0).bytes, (127 + 512 + 512) * per_token);
  EXPECT_DOUBLE_EQ(attention_prefill_core(g, 10000, 512, 1).bytes, (10000 + 512 + 512) * per_token);
  // Chunked 8192: after 10,000 tokens the current chunk holds 10,000 - 8,192 earlier positions.
  const ModelSpec l = preset("llama-4-maverick");
  EXPECT_DOUBLE_EQ(attention_prefill_core(l, 10000, 100, 0).bytes,
                   (10000 - 8192 + 100 + 100) * l.kv_bytes_per_token_per_layer());
}

TEST(LocalAttention, AllLayerSumsMatchThePerLayerLoop) {
  for (const char* name : {"gpt-oss-120b", "llama-4-maverick", "deepseek-v3"}) {
    const ModelSpec m = preset(name);
    Work decode, prefill;
    for (int i = 0; i < m.num_layers; ++i) {
      const Work d = attention_decode_core(m, 20000, i), p = attention_prefill_core(m, 9000, 3000, i);
      decode.flops += d.flops;
      decode.bytes += d.bytes;
      prefill.flops += p.flops;
      prefill.bytes += p.bytes;
    }
    EXPECT_NEAR(attention_decode_all_layers(m, 20000).flops, decode.flops, 1e-9 * decode.flops) << name;
    EXPECT_NEAR(attention_decode_all_layers(m, 20000).bytes, decode.bytes, 1e-9 * decode.bytes) << name;
    EXPECT_NEAR(attention_prefill_all_layers(m, 9000, 3000).flops, prefill.flops, 1e-9 * prefill.flops) << name;
    EXPECT_NEAR(attention_prefill_all_layers(m, 9000, 3000).bytes, prefill.bytes, 1e-9 * prefill.bytes) << name;
  }
}

TEST(LocalAttention, KvBytesForContextCapLocalLayersAtTheirWindow) {
  const ModelSpec g = preset("gpt-oss-120b");
  const double per_layer = g.kv_bytes_per_token_per_layer();
  EXPECT_DOUBLE_EQ(g.kv_bytes_for_context(100), 36 * 100 * per_layer);  // under the window
  EXPECT_DOUBLE_EQ(g.kv_bytes_for_context(10000), (18 * 10000 + 18 * 128) * per_layer);
  EXPECT_LT(g.kv_bytes_for_context(10000), 10000 * g.kv_bytes_per_token());
  const ModelSpec l = preset("llama-4-maverick");
  EXPECT_DOUBLE_EQ(l.kv_bytes_for_context(20000), (12.0 * 20000 + 36.0 * 8192) * l.kv_bytes_per_token_per_layer());
  // Without windows it is tokens × bytes per token.
  const ModelSpec d = preset("deepseek-v3");
  EXPECT_DOUBLE_EQ(d.kv_bytes_for_context(4096), 4096 * d.kv_bytes_per_token());
  EXPECT_DOUBLE_EQ(d.kv_bytes_for_context(0), 0);
}

TEST(LocalAttention, WindowsLetMoreLongRequestsFit) {
  const ModelSpec g = preset("gpt-oss-120b");
  MemoryOptions o;
  o.ep = 8;
  o.capacity_bytes = 80.0 * (1ULL << 30);
  const MemoryPlan plan = plan_rank_memory(g, o);
  ASSERT_TRUE(plan.fits());
  const std::int64_t requests = kv_capacity_requests(g, plan, 32768);
  EXPECT_EQ(requests, static_cast<std::int64_t>(plan.kv_bytes / g.kv_bytes_for_context(32768)));
  // Half the layers are capped at 128 tokens: nearly twice the requests of all-full accounting.
  EXPECT_GT(requests, 19 * (plan.kv_capacity_tokens / 32768) / 10);
}

}  // namespace
}  // namespace moesim::models
