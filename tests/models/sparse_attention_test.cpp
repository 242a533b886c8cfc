// DeepSeek Sparse Attention (DeepSeek-V3.2): the indexer scores every cached token, the MLA core
// attends to top_k of them, so the core's cost stops growing with the context past top_k while
// the indexer's keeps growing; the indexer's key cache and weights are counted.
#include <gtest/gtest.h>

#include <string>

#include "model_test_support.h"
#include "models/functional/decoder.h"
#include "models/functional/weights_random.h"
#include "models/layer_ops.h"
#include "models/model_yaml.h"

namespace moesim::models {
namespace {

using test::preset;

TEST(SparseAttention, DecodeCoreIsFlatPastTopKWhileTheIndexerGrows) {
  const ModelSpec m = preset("deepseek-v3.2");
  ASSERT_TRUE(m.sparse.enabled());
  const auto core = [&](std::int64_t len) {
    const Work all = attention_decode_core(m, len), index = attention_decode_indexer(m, len);
    return Work{all.flops - index.flops, all.bytes - index.bytes};
  };
  // Past top_k = 2048 the MLA core costs the same at 4K and 128K.
  EXPECT_DOUBLE_EQ(core(4096).flops, core(131072).flops);
  EXPECT_DOUBLE_EQ(core(4096).bytes, core(131072).bytes);
  EXPECT_LT(core(1024).flops, core(2048).flops);  // below top_k it attends to everything
  // The indexer is linear in the context: 64 heads x (2 x 128 + 2) FLOPs and a 132-byte key per
  // cached token.
  const Work i4 = attention_decode_indexer(m, 4096), i128 = attention_decode_indexer(m, 131072);
  EXPECT_DOUBLE_EQ(i4.flops, 4096.0 * 64 * (2 * 128 + 2));
  EXPECT_DOUBLE_EQ(i4.bytes, 4096.0 * 132);
  EXPECT_DOUBLE_EQ(i128.flops / i4.flops, 32.0);
  // Against dense DeepSeek-V3 at 128K: the sparse model's decode attention reads ~1/23 the bytes.
  const Work dense = attention_decode_core(preset("deepseek-v3"), 131072);
  const Work sparse = attention_decode_core(m, 131072);
  EXPECT_LT(sparse.flops, dense.flops / 5);
  EXPECT_LT(sparse.bytes, dense.bytes / 5);
  // A dense model has no indexer.
  EXPECT_EQ(attention_decode_indexer(preset("deepseek-v3"), 4096).flops, 0.0);
}

TEST(SparseAttention, PrefillAttendsToAtMostTopKPositionsPerQuery) {
  const ModelSpec m = preset("deepseek-v3.2");
  const ModelSpec no_index = [&] {
    ModelSpec s = m;
    s.sparse.index_heads = 0;  // the same model with a free indexer: only the core's work remains
    return s;
  }();
  // A 1K-token chunk after 64K cached positions costs the same core work as after 8K: every query
  // sees top_k positions either way; the indexer's pairs grow with the prefix.
  const Work far = attention_prefill_core(no_index, 65536, 1024), near = attention_prefill_core(no_index, 8192, 1024);
  EXPECT_DOUBLE_EQ(far.flops, near.flops);
  const double index_far = attention_prefill_core(m, 65536, 1024).flops - far.flops;
  const double index_near = attention_prefill_core(m, 8192, 1024).flops - near.flops;
  EXPECT_DOUBLE_EQ(index_far / index_near, (65536.0 * 1024 + 1024.0 * 1025 / 2) / (8192.0 * 1024 + 1024.0 * 1025 / 2));
  // A whole 2K prompt attends causally (no query sees more than 2,048 positions): core pairs are
  // the dense triangle, 2048 x 2049 / 2.
  const Work whole = attention_prefill_core(no_index, 0, 2048);
  const auto& a = m.mla;
  const double pairs = 2048.0 * 2049 / 2;
  const double absorb =
      2048.0 * (2.0 * m.heads * a.qk_nope_head_dim * a.kv_lora_rank + 2.0 * m.heads * a.kv_lora_rank * a.v_head_dim);
  EXPECT_DOUBLE_EQ(whole.flops, 2.0 * m.heads * pairs * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim) + absorb);
}

TEST(SparseAttention, IndexerKeysAndWeightsAreCounted) {
  const ModelSpec v32 = preset("deepseek-v3.2"), v3 = preset("deepseek-v3");
  // One FP8 key of 128 plus an FP32 scale per token and layer beside the BF16 latent (1,152 B).
  EXPECT_DOUBLE_EQ(v32.kv_bytes_per_token_per_layer(), v3.kv_bytes_per_token_per_layer() + 132);
  // Indexer weights per layer: wq_b [1536 -> 64 x 128], wk [7168 -> 128], weights [7168 -> 64].
  const std::int64_t per_layer = 1536LL * 64 * 128 + 7168LL * 128 + 7168LL * 64;
  EXPECT_EQ(count_parameters(v32).attention - count_parameters(v3).attention, per_layer * 61);
  // The V3.2-Exp card: 685 B in the checkpoint (main model, MTP module and their head copies),
  // as for V3 (test PresetParameters.DeepSeekV3MainModelAndMtpModule).
  const ParameterCount p = count_parameters(v32);
  const double checkpoint = static_cast<double>(p.total() + p.mtp) + 2.0 * v32.vocab * v32.hidden;
  EXPECT_NEAR(checkpoint / 685e9, 1.0, 0.01) << checkpoint;
}

TEST(SparseAttention, OnlyForMlaAndNotRunByTheFunctionalDecoder) {
  const std::string gqa =
      "name: m\nlayers: 2\nhidden: 64\nvocab: 10\n"
      "attention: {kind: gqa, heads: 4, kv_heads: 2, head_dim: 16, sparse: {index_heads: 4, index_head_dim: 8, top_k: "
      "16}}\n"
      "mlp: {intermediate: 32}\n";
  try {
    load_model_yaml(gqa, "m.yaml");
    ADD_FAILURE() << "accepted";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "m.yaml:5:69: attention.sparse: only for mla attention");
  }
  ModelSpec tiny = preset("deepseek-v2-lite");
  tiny.num_layers = 2;
  tiny.hidden = 64;
  tiny.vocab = 32;
  tiny.heads = 2;
  tiny.mla = {0, 16, 8, 4, 8};
  tiny.routed_experts = 4;
  tiny.shared_experts = 1;
  tiny.top_k = 2;
  tiny.moe_intermediate = 16;
  tiny.dense_intermediate = 32;
  tiny.sparse = {2, 8, 4};
  try {
    functional::Decoder d(tiny, functional::random_weights(tiny));
    ADD_FAILURE() << "accepted";
  } catch (const ModelError& e) {
    EXPECT_STREQ(e.what(), "deepseek-v2-lite: sparse attention (DSA) is not run by the functional decoder");
  }
}

}  // namespace
}  // namespace moesim::models
