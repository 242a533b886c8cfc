// Parameter totals of the presets against the figures their authors publish.
//
// Conventions differ on the activated count. DeepSeek, Moonshot and OpenAI count what a token
// touches: one row of the input embedding (ParameterCount::activated). Qwen, Mistral and Meta
// count the whole input-embedding table as activated; for those models the test adds it
// (vocab × hidden) before comparing.
#include <gtest/gtest.h>

#include "model_test_support.h"
#include "models/layer_ops.h"

namespace moesim::models {
namespace {

using test::preset;

struct Counts {
  double total;
  double activated;             // ParameterCount::activated
  double activated_with_table;  // + the whole input-embedding table
};

Counts counts(const char* name) {
  const ModelSpec m = preset(name);
  const ParameterCount p = count_parameters(m);
  const double table = static_cast<double>(m.vocab) * m.hidden;
  return {static_cast<double>(p.total()), static_cast<double>(p.activated), static_cast<double>(p.activated) + table};
}

// DeepSeek-V3 report (arXiv:2412.19437): 671 B total, 37 B activated; the Hugging Face
// checkpoint is 685 B: the main model plus the 14 B MTP module, whose checkpoint stores its own
// copies of the shared embedding and output head.
TEST(PresetParameters, DeepSeekV3MainModelAndMtpModule) {
  const ModelSpec m = preset("deepseek-v3");
  const ParameterCount p = count_parameters(m);
  EXPECT_NEAR(static_cast<double>(p.total()) / 671e9, 1.0, 0.01);
  EXPECT_GT(p.mtp, 0);
  const double checkpoint = static_cast<double>(p.total() + p.mtp) + 2.0 * m.vocab * m.hidden;
  EXPECT_NEAR(checkpoint / 685e9, 1.0, 0.01) << checkpoint;
  // The MTP module is one more MoE block plus the [2h -> h] projection.
  ModelSpec no_mtp = m;
  no_mtp.mtp_layers = 0;
  EXPECT_EQ(count_parameters(no_mtp).total(), p.total());  // MTP is not part of the total
  EXPECT_EQ(count_parameters(no_mtp).mtp, 0);
}

// Kimi K2: the model card says "1T" total and the K2 report "1.04T"; the two official figures
// differ by 4 %, so the count is checked to lie between them (it is 1.026 T, counting every
// weight matrix of config.json). Activated: 32 B in both.
TEST(PresetParameters, KimiK2) {
  const Counts c = counts("kimi-k2");
  EXPECT_GE(c.total, 1.00e12);
  EXPECT_LE(c.total, 1.04e12);
  EXPECT_NEAR(c.activated / 32e9, 1.0, 0.01) << c.activated;
}

// Qwen3 model cards: 235 B total / 22 B activated; 30.5 B / 3.3 B (non-embedding 29.9 B).
TEST(PresetParameters, Qwen3) {
  const Counts big = counts("qwen3-235b-a22b");
  EXPECT_NEAR(big.total / 235e9, 1.0, 0.01) << big.total;
  EXPECT_NEAR(big.activated_with_table / 22e9, 1.0, 0.01) << big.activated_with_table;
  const Counts small = counts("qwen3-30b-a3b");
  EXPECT_NEAR(small.total / 30.5e9, 1.0, 0.01) << small.total;
  const ModelSpec m = preset("qwen3-30b-a3b");
  EXPECT_NEAR((small.total - 2.0 * m.vocab * m.hidden) / 29.9e9, 1.0, 0.01);
  // Total minus the unselected experts is 3.353 B; the card prints it as "3.3B" (truncated), 1.6 %
  // below, so this one comparison allows 2 %.
  EXPECT_NEAR(small.activated_with_table / 3.3e9, 1.0, 0.02) << small.activated_with_table;
}

// Mistral: Mixtral-8x7B 46.7 B total / 12.9 B active; Mixtral-8x22B 141 B / 39 B.
TEST(PresetParameters, Mixtral) {
  const Counts a = counts("mixtral-8x7b");
  EXPECT_NEAR(a.total / 46.7e9, 1.0, 0.01) << a.total;
  EXPECT_NEAR(a.activated_with_table / 12.9e9, 1.0, 0.01) << a.activated_with_table;
  const Counts b = counts("mixtral-8x22b");
  EXPECT_NEAR(b.total / 141e9, 1.0, 0.01) << b.total;
  EXPECT_NEAR(b.activated_with_table / 39e9, 1.0, 0.01) << b.activated_with_table;
}

// gpt-oss model card (OpenAI, 2025): 116.83 B total, 5.13 B active per token ("117B / 5.1B").
TEST(PresetParameters, GptOss120b) {
  const Counts c = counts("gpt-oss-120b");
  EXPECT_NEAR(c.total / 116.83e9, 1.0, 0.01) << c.total;
  EXPECT_NEAR(c.activated / 5.13e9, 1.0, 0.01) << c.activated;
}

// gpt-oss model card (OpenAI, 2025): gpt-oss-20b has 20.91 B total, 3.61 B active per token.
TEST(PresetParameters, GptOss20b) {
  const Counts c = counts("gpt-oss-20b");
  EXPECT_NEAR(c.total / 20.91e9, 1.0, 0.01) << c.total;
  EXPECT_NEAR(c.activated / 3.61e9, 1.0, 0.01) << c.activated;
}

// DeepSeek-V2 report (arXiv:2405.04434): V2-Lite has 15.7 B total, 2.4 B activated.
TEST(PresetParameters, DeepSeekV2Lite) {
  const Counts c = counts("deepseek-v2-lite");
  EXPECT_NEAR(c.total / 15.7e9, 1.0, 0.01) << c.total;
  EXPECT_NEAR(c.activated / 2.4e9, 1.0, 0.03) << c.activated;  // "2.4B": two significant figures
}

// GLM-4.5 card (Zhipu AI, 2025): 355 B total, 32 B active; GLM-4.6 keeps the architecture. The
// active figure counts the transformer blocks only (neither the embedding row nor the LM head):
// with them the count is 32.8 B.
TEST(PresetParameters, Glm45And46) {
  for (const char* name : {"glm-4.5", "glm-4.6"}) {
    SCOPED_TRACE(name);
    const ModelSpec m = preset(name);
    const Counts c = counts(name);
    EXPECT_NEAR(c.total / 355e9, 1.0, 0.01) << c.total;
    const double blocks = c.activated - static_cast<double>(m.vocab) * m.hidden - m.hidden;
    EXPECT_NEAR(blocks / 32e9, 1.0, 0.01) << blocks;
    EXPECT_EQ(m.rotary_dim(), 64);  // partial_rotary_factor 0.5 of head_dim 128
  }
}

// MiniMax-M2 card (MiniMax, 2025): 230 B total, 10 B activated ("10B": two significant figures,
// so the count must round to it).
TEST(PresetParameters, MiniMaxM2) {
  const Counts c = counts("minimax-m2");
  EXPECT_NEAR(c.total / 230e9, 1.0, 0.01) << c.total;
  EXPECT_GE(c.activated, 9.5e9);
  EXPECT_LT(c.activated, 10.5e9);
}

// Meta: Llama 4 Maverick, 17 B active / 400 B total (text model; the vision encoder is not
// modelled). "17B" has two significant figures, so the count must round to it: [16.5, 17.5) B.
TEST(PresetParameters, Llama4Maverick) {
  const Counts c = counts("llama-4-maverick");
  EXPECT_NEAR(c.total / 400e9, 1.0, 0.01) << c.total;
  EXPECT_GE(c.activated_with_table, 16.5e9);
  EXPECT_LT(c.activated_with_table, 17.5e9);
}

TEST(PresetParameters, TiedEmbeddingsCountOneMatrix) {
  ModelSpec m = preset("tiny-moe");
  const ParameterCount untied = count_parameters(m);
  m.tie_embeddings = true;
  const ParameterCount tied = count_parameters(m);
  const std::int64_t table = static_cast<std::int64_t>(m.vocab) * m.hidden;
  EXPECT_EQ(untied.embedding, 2 * table);
  EXPECT_EQ(tied.embedding, table);
  EXPECT_EQ(untied.total() - tied.total(), table);
  // The token's embedding row is part of the (tied) LM head it multiplies by anyway.
  EXPECT_EQ(untied.activated - tied.activated, m.hidden);
}

}  // namespace
}  // namespace moesim::models
