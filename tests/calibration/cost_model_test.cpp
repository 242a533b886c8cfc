#include "calibration/cost_model.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "calibration/calibration_error.h"
#include "models/presets.h"

namespace moesim::calibration {
namespace {

using models::DType;

HardwareProfile h800() {
  auto hw = find_hardware_preset("h800");
  EXPECT_TRUE(hw.has_value());
  return hw.value_or(HardwareProfile{});
}

models::ModelSpec model(const char* name) {
  auto m = models::find_model_preset(name);
  EXPECT_TRUE(m.has_value()) << name;
  return m.value_or(models::ModelSpec{});
}

class Roofline : public ::testing::Test {
 protected:
  HardwareProfile hw_ = h800();
  std::unique_ptr<CostModel> cm_ = make_cost_model(CostModelKind::kRoofline, hw_);
};

TEST_F(Roofline, TinyGemmIsMemoryBoundOnWeightReads) {
  const std::int64_t n = 7168, k = 7168;
  const KernelCost c = cm_->gemm(1, n, k, DType::kFp8);
  EXPECT_FALSE(c.compute_bound);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * n * k);
  // One row: the [k × n] FP8 weight dominates the bytes.
  EXPECT_GE(c.bytes, static_cast<double>(k) * n);
  EXPECT_NEAR(c.time_ns, c.bytes / hw_.hbm_bytes_per_s * 1e9 + cm_->launch_overhead_ns(), 1e-6 * c.time_ns);
  EXPECT_GT(c.time_ns, static_cast<double>(k) * n / hw_.hbm_bytes_per_s * 1e9);
}

TEST_F(Roofline, BigGemmIsComputeBoundAtPeak) {
  const std::int64_t m = 16384, n = 7168, k = 7168;
  for (DType t : {DType::kBf16, DType::kFp8}) {
    const KernelCost c = cm_->gemm(m, n, k, t);
    EXPECT_TRUE(c.compute_bound);
    const double peak = t == DType::kFp8 ? hw_.peak_fp8_flops : hw_.peak_bf16_flops;
    const double expected = 2.0 * m * n * k / peak * 1e9 + cm_->launch_overhead_ns();
    EXPECT_NEAR(c.time_ns, expected, 1e-9 * expected);
  }
}

TEST_F(Roofline, GemmTimeNeverDecreasesWithRows) {
  double prev = 0;
  for (std::int64_t m = 1; m <= 65536; m *= 2) {
    const double t = cm_->gemm(m, 4096, 7168, DType::kFp8).time_ns;
    EXPECT_GE(t, prev) << m;
    prev = t;
  }
}

TEST_F(Roofline, GroupedGemmReadsNoWeightsForEmptyGroups) {
  const std::int64_t n = 4096, k = 7168;
  const std::vector<std::int64_t> dense{5, 5}, sparse{5, 0, 0, 5, 0}, one{10};
  const KernelCost a = cm_->grouped_gemm(dense, n, k, DType::kFp8);
  const KernelCost b = cm_->grouped_gemm(sparse, n, k, DType::kFp8);
  const KernelCost c = cm_->grouped_gemm(one, n, k, DType::kFp8);
  EXPECT_DOUBLE_EQ(a.bytes, b.bytes);
  EXPECT_DOUBLE_EQ(a.time_ns, b.time_ns);
  // Same rows, one more weight matrix read: exactly k·n FP8 bytes more.
  EXPECT_DOUBLE_EQ(a.bytes - c.bytes, static_cast<double>(k) * n * 1.0);
  EXPECT_DOUBLE_EQ(a.flops, c.flops);
}

TEST_F(Roofline, GroupedGemmOfOneGroupIsAGemm) {
  const std::vector<std::int64_t> one{300};
  const KernelCost g = cm_->grouped_gemm(one, 4096, 7168, DType::kFp8);
  const KernelCost d = cm_->gemm(300, 4096, 7168, DType::kFp8);
  EXPECT_DOUBLE_EQ(g.flops, d.flops);
  EXPECT_DOUBLE_EQ(g.bytes, d.bytes);
  EXPECT_DOUBLE_EQ(g.time_ns, d.time_ns);
}

TEST_F(Roofline, GroupedGemmWithNoRowsCostsNothing) {
  const std::vector<std::int64_t> none{0, 0, 0};
  const KernelCost c = cm_->grouped_gemm(none, 4096, 7168, DType::kFp8);
  EXPECT_DOUBLE_EQ(c.time_ns, 0);
  EXPECT_DOUBLE_EQ(c.bytes, 0);
}

TEST_F(Roofline, DecodeAttentionBoundByKvBytesOverHbm) {
  // GQA tiny model: 2 FLOPs per byte of KV read, far below H800's ~300 FLOP/byte ridge.
  const auto m = model("tiny-moe");
  const std::vector<std::int64_t> lens{1000, 3000, 8000, 50};
  double kv_tokens = 0;
  for (auto l : lens) kv_tokens += static_cast<double>(l);
  const double bytes = kv_tokens * 2.0 * m.kv_heads * m.head_dim * models::bytes_per_element(m.kv_dtype);
  const KernelCost c = cm_->attention_decode(m, lens);
  EXPECT_FALSE(c.compute_bound);
  EXPECT_DOUBLE_EQ(c.bytes, bytes);
  EXPECT_NEAR(c.time_ns, bytes / hw_.hbm_bytes_per_s * 1e9 + cm_->launch_overhead_ns(), 1e-9 * c.time_ns);
}

TEST_F(Roofline, MlaDecodeReadsTheLatentCache) {
  const auto m = model("deepseek-v3");
  const std::vector<std::int64_t> lens(64, 4096);
  const double bytes =
      64.0 * 4096 * (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * models::bytes_per_element(m.kv_dtype);
  const KernelCost c = cm_->attention_decode(m, lens);
  EXPECT_DOUBLE_EQ(c.bytes, bytes);
  EXPECT_GE(c.time_ns, bytes / hw_.hbm_bytes_per_s * 1e9 + cm_->launch_overhead_ns());
  // Twice the history: twice the bytes, so (at least) twice the transfer time.
  const std::vector<std::int64_t> longer(64, 8192);
  const KernelCost c2 = cm_->attention_decode(m, longer);
  EXPECT_DOUBLE_EQ(c2.bytes, 2 * bytes);
  EXPECT_GT(c2.time_ns - cm_->launch_overhead_ns(), 1.99 * (c.time_ns - cm_->launch_overhead_ns()));
}

TEST_F(Roofline, LongPrefillAttentionIsComputeBound) {
  const auto m = model("deepseek-v3");
  const std::vector<PrefillChunk> chunks{{0, 8192}};
  const KernelCost c = cm_->attention_prefill(m, chunks);
  EXPECT_TRUE(c.compute_bound);
  EXPECT_NEAR(c.time_ns, c.flops / hw_.peak_flops(m.activation_dtype) * 1e9 + cm_->launch_overhead_ns(),
              1e-9 * c.time_ns);
  EXPECT_DOUBLE_EQ(cm_->attention_prefill(m, {}).time_ns, 0);
  EXPECT_DOUBLE_EQ(cm_->attention_decode(m, {}).time_ns, 0);
}

TEST_F(Roofline, MemoryOpStreamsAtHbmBandwidth) {
  const double bytes = 1e9;
  EXPECT_NEAR(cm_->memory_op(bytes).time_ns, bytes / hw_.hbm_bytes_per_s * 1e9 + cm_->launch_overhead_ns(), 1e-6);
  EXPECT_GT(cm_->launch_overhead_ns(), 0);
}

TEST(CostModelRegistry, UnknownModelThrowsListingValidNames) {
  try {
    cost_model_kind("fitted-v9");
    FAIL() << "expected CalibrationError";
  } catch (const CalibrationError& e) {
    EXPECT_STREQ(e.what(), "unknown cost model 'fitted-v9' (valid: roofline, fitted)");
  }
  const auto entries = cost_models();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const CostModelKind kind = cost_model_kind(entries[i].name);
    EXPECT_EQ(static_cast<std::size_t>(kind), i) << entries[i].name;
    EXPECT_EQ(to_string(kind), entries[i].name);
    EXPECT_NE(make_cost_model(kind, h800()), nullptr) << entries[i].name;
  }
}

}  // namespace
}  // namespace moesim::calibration
