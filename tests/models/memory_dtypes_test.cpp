// Memory plan details added with the YAML presets: per-class weight dtypes (MXFP4 experts), tied
// embeddings and the optional MTP module.
#include <gtest/gtest.h>

#include "model_test_support.h"
#include "models/layer_ops.h"
#include "models/memory.h"

namespace moesim::models {
namespace {

using test::preset;

MemoryOptions options(int ep, bool mtp = false) {
  MemoryOptions o;
  o.ep = ep;
  o.capacity_bytes = 141.0 * (1ULL << 30);
  o.load_mtp = mtp;
  return o;
}

// NVFP4 (NVIDIA's DeepSeek-R1-FP4): 4-bit values and an E4M3 scale per 16, so the routed experts
// take 0.5625 of FP8's bytes (FP8 carries an FP32 scale per 128x128 block); nothing else changes.
TEST(MemoryDtypes, Nvfp4ExpertsCarryOneScaleBytePer16Values) {
  const ModelSpec fp4 = preset("deepseek-r1-fp4"), fp8 = preset("deepseek-v3");
  ASSERT_EQ(fp4.expert_dtype(), DType::kNvfp4);
  EXPECT_DOUBLE_EQ(weight_bytes_per_param(DType::kNvfp4), 0.5 + 1.0 / 16);
  const MemoryPlan p4 = plan_rank_memory(fp4, options(8)), p8 = plan_rank_memory(fp8, options(8));
  EXPECT_NEAR(p4.routed_expert_bytes / p8.routed_expert_bytes, (0.5 + 1.0 / 16) / (1 + 4.0 / (128 * 128)), 1e-9);
  EXPECT_NEAR(p4.weight_bytes - p4.routed_expert_bytes, p8.weight_bytes - p8.routed_expert_bytes, 1.0);
  EXPECT_GT(p4.kv_bytes, p8.kv_bytes);  // the memory the experts free goes to the KV cache
  // Dispatch in NVFP4: half a byte per value, a byte of scale per 16, and the routing ids/weights.
  EXPECT_DOUBLE_EQ(dispatch_bytes_per_token(fp4), 7168 / 2.0 + 7168 / 16.0 + 8 * 8.0);
  EXPECT_EQ(count_parameters(fp4).total(), count_parameters(fp8).total());
}

TEST(MemoryDtypes, Mxfp4ExpertsCarryOneScaleBytePer32Values) {
  const ModelSpec m = preset("gpt-oss-120b");
  ASSERT_EQ(m.expert_dtype(), DType::kMxfp4);
  ASSERT_EQ(m.weight_dtype, DType::kBf16);
  const MemoryPlan p = plan_rank_memory(m, options(8));
  // OCP MXFP4: 4-bit elements plus an 8-bit shared scale per block of 32.
  const double per_param = 0.5 + 1.0 / 32;
  EXPECT_DOUBLE_EQ(weight_bytes_per_param(DType::kMxfp4), per_param);
  EXPECT_NEAR(p.routed_expert_bytes, static_cast<double>(expert_params(m)) * (128 / 8) * 36 * per_param, 1.0);
  // Everything else (attention, routers, embeddings) stays BF16.
  const ParameterCount c = count_parameters(m);
  EXPECT_NEAR(p.weight_bytes - p.routed_expert_bytes, 2.0 * static_cast<double>(c.attention + c.routers + c.embedding),
              1.0);
}

TEST(MemoryDtypes, MtpModuleIsLoadedOnlyWhenAskedFor) {
  const ModelSpec m = preset("deepseek-v3");
  const MemoryPlan without = plan_rank_memory(m, options(32));
  const MemoryPlan with = plan_rank_memory(m, options(32, true));
  const double fp8 = weight_bytes_per_param(DType::kFp8);
  const double expert = static_cast<double>(expert_params(m));
  // One more MoE layer's 8 routed experts per rank, and the rest of the module replicated.
  EXPECT_NEAR(with.routed_expert_bytes - without.routed_expert_bytes, expert * 8 * fp8, 1.0);
  const double rest = static_cast<double>(count_parameters(m).mtp) - expert * 256;
  EXPECT_NEAR(with.weight_bytes - without.weight_bytes, expert * 8 * fp8 + rest * fp8, 1.0);
  EXPECT_LT(with.kv_capacity_tokens, without.kv_capacity_tokens);
}

TEST(MemoryDtypes, TiedEmbeddingsStoreOneMatrix) {
  ModelSpec m = preset("tiny-moe");
  const MemoryPlan untied = plan_rank_memory(m, options(4));
  m.tie_embeddings = true;
  const MemoryPlan tied = plan_rank_memory(m, options(4));
  EXPECT_DOUBLE_EQ(untied.weight_bytes - tied.weight_bytes,
                   1.0 * m.vocab * m.hidden * bytes_per_element(m.activation_dtype));
}

}  // namespace
}  // namespace moesim::models
