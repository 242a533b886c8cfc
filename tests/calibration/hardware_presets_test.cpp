#include "calibration/hardware_profile.h"

#include <gtest/gtest.h>

#include "tests/calibration/hardware_test_support.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace moesim::calibration {
namespace {

using moesim::calibration::test::preset;

TEST(HardwarePresets, H800FieldsAreSane) {
  const HardwareProfile hw = preset("h800");
  EXPECT_EQ(hw.name, "h800");
  EXPECT_FALSE(hw.source.empty());
  EXPECT_EQ(hw.sm_count, 132);
  // Hopper tensor cores run FP8 at twice the BF16 rate; the datasheet rounds both to whole
  // TFLOPS, so allow 0.5 TFLOPS of rounding on each (1.5 TFLOPS on fp8 − 2·bf16).
  EXPECT_NEAR(hw.peak_fp8_flops, 2 * hw.peak_bf16_flops, 1.5e12);
  EXPECT_GT(hw.peak_bf16_flops, 900e12);
  EXPECT_LT(hw.peak_bf16_flops, 1100e12);
  // "80 GB" of HBM3: at least 80e9 bytes, under 96 GiB.
  EXPECT_GE(hw.hbm_bytes, 80e9);
  EXPECT_LT(hw.hbm_bytes, 96.0 * (1ULL << 30));
  EXPECT_GT(hw.hbm_bytes_per_s, 3e12);
  // NVLink 400 GB/s bidirectional on H800 → half per direction; one 400 Gb/s NIC = 400e9 / 8 B/s.
  EXPECT_DOUBLE_EQ(hw.scaleup_bytes_per_s, 400e9 / 2);
  EXPECT_DOUBLE_EQ(hw.nic_bytes_per_s, 400e9 / 8);
}

TEST(HardwarePresets, H100DiffersFromH800OnlyInNvlink) {
  const HardwareProfile h800 = preset("h800"), h100 = preset("h100");
  EXPECT_GT(h100.scaleup_bytes_per_s, h800.scaleup_bytes_per_s);
  EXPECT_DOUBLE_EQ(h100.peak_fp8_flops, h800.peak_fp8_flops);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes_per_s, h800.hbm_bytes_per_s);
  EXPECT_EQ(h100.sm_count, h800.sm_count);
}

TEST(HardwarePresets, PeakFlopsByDtype) {
  const HardwareProfile hw = preset("h800");
  EXPECT_DOUBLE_EQ(hw.peak_flops(models::DType::kFp8), hw.peak_fp8_flops);
  EXPECT_DOUBLE_EQ(hw.peak_flops(models::DType::kBf16), hw.peak_bf16_flops);
  EXPECT_DOUBLE_EQ(hw.peak_flops(models::DType::kFp16), hw.peak_bf16_flops);
  EXPECT_LT(hw.peak_flops(models::DType::kFp32), hw.peak_bf16_flops);
}

TEST(HardwarePresets, EveryListedPresetResolvesAndUnknownIsNullopt) {
  const auto list = hardware_presets();
  ASSERT_GE(list.size(), 2u);
  for (const auto& info : list) {
    const auto hw = find_hardware_preset(info.name);
    ASSERT_TRUE(hw.has_value()) << info.name;
    EXPECT_EQ(hw->name, info.name);
    EXPECT_FALSE(info.description.empty());
  }
  EXPECT_FALSE(find_hardware_preset("tpu-v9").has_value());
  EXPECT_FALSE(find_hardware_preset("").has_value());
}

TEST(HardwarePresets, EveryPresetIsCompleteAndCitesItsSource) {
  for (const auto& info : hardware_presets()) {
    if (info.name == "cpu-test") continue;  // made-up small device, checked in hardware_yaml_test
    const HardwareProfile hw = preset(std::string(info.name).c_str());
    EXPECT_EQ(hw.name, info.name);
    EXPECT_FALSE(hw.source.empty()) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_GT(hw.sm_count, 0) << info.name;
    // Every listed device's 8-bit units (FP8, or INT8 where it has no FP8) run at twice its BF16
    // rate; its FP4 units, where it has them, at two or three times its FP8 rate.
    EXPECT_NEAR(std::max(hw.peak_fp8_flops, hw.peak_int8_flops) / hw.peak_bf16_flops, 2.0, 0.01) << info.name;
    if (hw.peak_fp4_flops > 0) {
      EXPECT_GE(hw.peak_fp4_flops / hw.peak_fp8_flops, 2.0 - 0.03) << info.name;
      EXPECT_LE(hw.peak_fp4_flops / hw.peak_fp8_flops, 3.0) << info.name;
    }
    EXPECT_GE(hw.hbm_bytes, 64e9) << info.name;
    EXPECT_GT(hw.hbm_bytes_per_s, 1.5e12) << info.name;
    EXPECT_GT(hw.scaleup_bytes_per_s, hw.nic_bytes_per_s) << info.name;
    EXPECT_GT(hw.nic_bytes_per_s, 0) << info.name;
  }
}

TEST(HardwarePresets, NewerGenerationsAreFasterAndLarger) {
  const HardwareProfile h100 = preset("h100"), h200 = preset("h200"), b200 = preset("b200"), gb200 = preset("gb200");
  EXPECT_DOUBLE_EQ(h200.peak_fp8_flops, h100.peak_fp8_flops);  // same compute die
  EXPECT_GT(h200.hbm_bytes, h100.hbm_bytes);
  EXPECT_GT(h200.hbm_bytes_per_s, h100.hbm_bytes_per_s);
  EXPECT_GT(b200.peak_fp8_flops, 2 * h100.peak_fp8_flops);
  EXPECT_GT(b200.scaleup_bytes_per_s, h100.scaleup_bytes_per_s);
  EXPECT_GT(gb200.peak_fp8_flops, b200.peak_fp8_flops);
}

}  // namespace
}  // namespace moesim::calibration
