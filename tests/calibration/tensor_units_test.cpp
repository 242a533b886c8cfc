// Which tensor units run a GEMM (calibration/hardware_profile.h): each precision at its own peak
// where the device has the units, else on the units it falls back to, and the GEMM cost follows.
#include <gtest/gtest.h>

#include "tests/calibration/hardware_test_support.h"

#include <memory>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "calibration/hardware_yaml.h"

namespace moesim::calibration {
namespace {

using models::DType;

using moesim::calibration::test::preset;

TEST(TensorUnits, EachPrecisionRunsOnItsOwnUnitsWhereTheDeviceHasThem) {
  const HardwareProfile b200 = preset("b200");
  EXPECT_EQ(b200.units(DType::kNvfp4), Units::kFp4);
  EXPECT_DOUBLE_EQ(b200.peak_flops(DType::kNvfp4), 9e15);  // DGX B200: 144 PF FP4 sparse / 8 / 2
  EXPECT_DOUBLE_EQ(b200.peak_flops(DType::kFp8), 4.5e15);
  // MXFP4 weights against FP8 activations: Blackwell's mixed-input MMA runs at the FP8 rate.
  EXPECT_EQ(b200.units(DType::kMxfp4), Units::kFp8);
  const HardwareProfile mi300x = preset("mi300x");
  EXPECT_EQ(mi300x.units(DType::kInt8), Units::kInt8);
  EXPECT_DOUBLE_EQ(mi300x.peak_flops(DType::kInt8), 2614.9e12);
  const HardwareProfile mi355x = preset("mi355x");
  EXPECT_DOUBLE_EQ(mi355x.peak_flops(DType::kNvfp4), 10.1e15);
  EXPECT_DOUBLE_EQ(mi355x.peak_flops(DType::kBf16), 2.5e15);
}

TEST(TensorUnits, DevicesWithoutTheUnitsRunTheGemmOnOthers) {
  // Hopper has no FP4 units: NVFP4 weights are converted to FP8 in the main loop.
  const HardwareProfile h100 = preset("h100");
  EXPECT_FALSE(h100.has_units(Units::kFp4));
  EXPECT_EQ(h100.units(DType::kNvfp4), Units::kFp8);
  EXPECT_DOUBLE_EQ(h100.peak_flops(DType::kNvfp4), h100.peak_flops(DType::kFp8));
  // Ascend has INT8 but no FP8: FP8 checkpoints run as W8A8 INT8 (the default chain).
  const HardwareProfile ascend = preset("ascend-910b");
  EXPECT_EQ(ascend.units(DType::kFp8), Units::kInt8);
  EXPECT_DOUBLE_EQ(ascend.peak_flops(DType::kFp8), 752e12);
  EXPECT_EQ(ascend.units(DType::kNvfp4), Units::kInt8);
  // A100 has INT8 too, but its profile says FP8 and FP4 run weight-only on the BF16 units.
  const HardwareProfile a100 = preset("a100");
  EXPECT_EQ(a100.units(DType::kFp8), Units::kBf16);
  EXPECT_EQ(a100.units(DType::kMxfp4), Units::kBf16);
  EXPECT_EQ(a100.units(DType::kInt8), Units::kInt8);
  EXPECT_DOUBLE_EQ(a100.peak_flops(DType::kFp8), 312e12);
  // Blackwell Ultra lists no INT8 rate: INT8 is requantised to FP8.
  EXPECT_EQ(preset("gb300").units(DType::kInt8), Units::kFp8);
}

TEST(TensorUnits, RunsAsIsReadAndWrittenBack) {
  const std::string text =
      "name: dev\nsource: test\ncompute:\n  sm_count: 4\n  int8: 20TOPS\n  bf16: 10TFLOPS\n"
      "  runs_as: {fp8: bf16}\nmemory:\n  capacity: 24GiB\n  bandwidth: 1TB/s\n"
      "network:\n  scaleup: 100GB/s\n  nic: 200Gbps\n";
  const HardwareProfile hw = load_hardware_yaml(text, "dev.yaml");
  EXPECT_EQ(hw.units(DType::kFp8), Units::kBf16);
  EXPECT_EQ(hw.units(DType::kNvfp4), Units::kInt8);  // no runs_as for fp4: the default chain
  EXPECT_DOUBLE_EQ(hw.peak_fp8_flops, 0);
  EXPECT_DOUBLE_EQ(hw.peak_int8_flops, 20e12);
}

// A compute-bound GEMM's time follows the units' peak: NVFP4 at half FP8's time on Blackwell,
// the same as FP8 on Hopper, where its weights still read half the bytes.
TEST(TensorUnits, GemmCostFollowsTheUnitsPeak) {
  for (const char* model : {"roofline", "fitted"}) {
    const auto b200 = make_cost_model(cost_model_kind(model), preset("b200"));
    const auto h100 = make_cost_model(cost_model_kind(model), preset("h100"));
    const std::int64_t m = 8192, n = 7168, k = 7168;
    const double b_fp8 = b200->gemm(m, n, k, DType::kFp8).time_ns, b_fp4 = b200->gemm(m, n, k, DType::kNvfp4).time_ns;
    EXPECT_TRUE(b200->gemm(m, n, k, DType::kNvfp4).compute_bound) << model;
    // Half, plus the fitted model's fixed and per-tile costs, which do not scale with the rate.
    EXPECT_GE(b_fp4 / b_fp8, 0.5) << model;
    EXPECT_LT(b_fp4 / b_fp8, 0.56) << model;
    const double h_fp8 = h100->gemm(m, n, k, DType::kFp8).time_ns, h_fp4 = h100->gemm(m, n, k, DType::kNvfp4).time_ns;
    EXPECT_NEAR(h_fp4 / h_fp8, 1.0, 0.02) << model;
    // Memory-bound (decode): FP4 weights read about half FP8's bytes on either device.
    const double h_fp8_small = h100->gemm(8, n, k, DType::kFp8).time_ns;
    const double h_fp4_small = h100->gemm(8, n, k, DType::kNvfp4).time_ns;
    EXPECT_LT(h_fp4_small, 0.7 * h_fp8_small) << model;
    // INT8 on an A100 at the INT8 rate, FP8 weight-only at the BF16 rate.
    const auto a100 = make_cost_model(cost_model_kind(model), preset("a100"));
    EXPECT_NEAR(a100->gemm(m, n, k, DType::kFp8).time_ns / a100->gemm(m, n, k, DType::kInt8).time_ns, 2.0, 0.1)
        << model;
  }
}

}  // namespace
}  // namespace moesim::calibration
