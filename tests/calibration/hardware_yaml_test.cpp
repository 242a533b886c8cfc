// Hardware profiles as YAML: every profile loads, the NVIDIA figures are the ones the C++ presets
// had, and malformed files give one line with file:line:column.
#include "calibration/hardware_yaml.h"

#include <gtest/gtest.h>

#include "tests/thrown.h"

#include "tests/calibration/hardware_test_support.h"

#include "tests/text_replace.h"

#include <algorithm>
#include <string>
#include <vector>

namespace moesim::calibration {
namespace {

using moesim::calibration::test::preset;

const std::string kProfile =
    "name: dev\n"           // 1
    "source: test\n"        // 2
    "compute:\n"            // 3
    "  sm_count: 10\n"      // 4
    "  fp8: 20TFLOPS\n"     // 5
    "  bf16: 10TFLOPS\n"    // 6
    "memory:\n"             // 7
    "  capacity: 24GiB\n"   // 8
    "  bandwidth: 1TB/s\n"  // 9
    "network:\n"            // 10
    "  scaleup: 100GB/s\n"  // 11
    "  nic: 200Gbps\n";     // 12

std::string error_of(const std::string& text) {
  return moesim::testing::thrown_message<HardwareError>([&] { load_hardware_yaml(text, "dev.yaml"); });
}

using moesim::testing::replace;

TEST(HardwareYaml, EveryProfileLoads) {
  std::vector<std::string> names;
  for (const auto& info : hardware_presets()) {
    names.emplace_back(info.name);
    const HardwareProfile hw = preset(std::string(info.name).c_str());
    EXPECT_FALSE(hw.source.empty()) << info.name;
    EXPECT_FALSE(info.description.empty()) << info.name;
    EXPECT_EQ(
        load_hardware_file(std::string(MOESIM_SOURCE_DIR) + "/calibration/profiles/" + std::string(info.name) + ".yaml")
            .hbm_bytes,
        hw.hbm_bytes);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"a100", "a800", "ascend-910b", "ascend-910c", "b200", "b300", "cpu-test", "gb200",
                                      "gb300", "h100", "h20", "h200", "h800", "mi300x", "mi325x", "mi355x"}));
}

// The values of the C++ presets these files replaced, written the way that code wrote them.
TEST(HardwareYaml, NvidiaProfilesKeepTheirValues) {
  const HardwareProfile h800 = preset("h800");
  EXPECT_EQ(h800.sm_count, 132);
  EXPECT_EQ(h800.peak_fp8_flops, 1979e12);
  EXPECT_EQ(h800.peak_bf16_flops, 989e12);
  EXPECT_EQ(h800.hbm_bytes, 81559.0 * 1024 * 1024);
  EXPECT_EQ(h800.hbm_bytes_per_s, 3.35e12);
  EXPECT_EQ(h800.scaleup_bytes_per_s, 200e9);
  EXPECT_EQ(h800.nic_bytes_per_s, 50e9);
  const HardwareProfile h100 = preset("h100");
  EXPECT_EQ(h100.scaleup_bytes_per_s, 450e9);
  EXPECT_EQ(h100.hbm_bytes, h800.hbm_bytes);
  EXPECT_EQ(h100.nic_bytes_per_s, 50e9);
  const HardwareProfile h200 = preset("h200");
  EXPECT_EQ(h200.hbm_bytes, 141.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(h200.hbm_bytes_per_s, 4.8e12);
  EXPECT_EQ(h200.peak_fp8_flops, 1979e12);
  EXPECT_EQ(h200.scaleup_bytes_per_s, 450e9);
  const HardwareProfile b200 = preset("b200");
  EXPECT_EQ(b200.sm_count, 148);
  EXPECT_EQ(b200.peak_fp8_flops, 4.5e15);
  EXPECT_EQ(b200.peak_bf16_flops, 2.25e15);
  EXPECT_EQ(b200.hbm_bytes, 180.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(b200.hbm_bytes_per_s, 8e12);
  EXPECT_EQ(b200.scaleup_bytes_per_s, 900e9);
  EXPECT_EQ(b200.nic_bytes_per_s, 50e9);
  const HardwareProfile gb200 = preset("gb200");
  EXPECT_EQ(gb200.sm_count, 148);
  EXPECT_EQ(gb200.peak_fp8_flops, 5e15);
  EXPECT_EQ(gb200.peak_bf16_flops, 2.5e15);
  EXPECT_EQ(gb200.hbm_bytes, 13.4e12 / 72);
  EXPECT_EQ(gb200.hbm_bytes_per_s, 8e12);
  EXPECT_EQ(gb200.scaleup_bytes_per_s, 900e9);
}

// CloudMatrix384 paper (arXiv:2506.12708): 752 TFLOPS BF16 per package, UB 392 GB/s and RDMA
// 400 Gb/s per NPU and direction; the 8-bit slot holds the (derived) INT8 rate.
TEST(HardwareYaml, Ascend910cFigures) {
  const HardwareProfile hw = preset("ascend-910c");
  EXPECT_EQ(hw.peak_bf16_flops, 752e12);
  EXPECT_EQ(hw.peak_flops(models::DType::kInt8), 2 * 752e12);
  EXPECT_EQ(hw.hbm_bytes, 128.0 * (1ULL << 30));
  EXPECT_EQ(hw.hbm_bytes_per_s, 3.2e12);
  EXPECT_EQ(hw.scaleup_bytes_per_s, 392e9);
  EXPECT_EQ(hw.nic_bytes_per_s, 400e9 / 8);
  EXPECT_EQ(hw.sm_count, 48);
}

TEST(HardwareYaml, CpuTestIsSmallAndLabelled) {
  const HardwareProfile hw = preset("cpu-test");
  EXPECT_NE(hw.source.find("no real device"), std::string::npos);
  EXPECT_LT(hw.hbm_bytes, 80e9);
  EXPECT_EQ(hw.peak_bf16_flops, 1e12);
}

TEST(HardwareYaml, ReadsAValidProfile) {
  const HardwareFile f = read_hardware_yaml(kProfile + "description: a device\n", "dev.yaml");
  EXPECT_EQ(f.description, "a device");
  EXPECT_EQ(f.profile.name, "dev");
  EXPECT_EQ(f.profile.hbm_bytes, 24.0 * (1ULL << 30));
  EXPECT_EQ(f.profile.nic_bytes_per_s, 25e9);
}

TEST(HardwareYaml, Errors) {
  EXPECT_EQ(error_of(replace(kProfile, "  sm_count: 10", "  sm_cuont: 10")),
            "dev.yaml:4:3: compute.sm_cuont: unknown key 'sm_cuont'; did you mean 'sm_count'?");
  EXPECT_EQ(error_of(replace(kProfile, "  bandwidth: 1TB/s", "  bandwidth: 1000")),
            "dev.yaml:9:14: memory.bandwidth: expected a bandwidth with a unit (bps, Kbps, Mbps, Gbps, Tbps, b/s, "
            "Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, TB/s, Bps, KBps, MBps, GBps, TBps, KiB/s, MiB/s, GiB/s, "
            "TiB/s; b = bits, B = bytes), got '1000'");
  EXPECT_EQ(error_of(replace(kProfile, "  sm_count: 10", "  sm_count: ten")),
            "dev.yaml:4:13: compute.sm_count: expected an integer, got 'ten'");
  EXPECT_EQ(error_of(replace(kProfile, "  nic: 200Gbps\n", "")), "dev.yaml:11:3: network: missing required key 'nic'");
  EXPECT_EQ(error_of(replace(kProfile, "source: test\n", "")), "dev.yaml:1:1: missing required key 'source'");
  EXPECT_EQ(error_of(replace(kProfile, "  fp8: 20TFLOPS\n", "")),
            "dev.yaml:4:3: compute: missing required key 'fp8' (or 'int8' on devices without FP8)");
  EXPECT_EQ(error_of(replace(kProfile, "  bf16: 10TFLOPS", "  bf16: 10TFLOPS\n  runs_as: {fp8: bf16}")),
            "dev.yaml:7:18: compute.runs_as.fp8: this device has fp8 units (compute.fp8)");
  EXPECT_EQ(error_of(replace(kProfile, "  bf16: 10TFLOPS", "  bf16: 10TFLOPS\n  runs_as: {fp4: int8}")),
            "dev.yaml:7:18: compute.runs_as.fp4: this device has no int8 units (no compute.int8)");
  EXPECT_EQ(
      error_of(replace(kProfile, "  bf16: 10TFLOPS", "  bf16: 10TFLOPS\n  runs_as: {fp4: fp16}")),
      "dev.yaml:7:18: compute.runs_as.fp4: unknown units 'fp16'; did you mean 'fp4'? (valid: fp4, fp8, int8, bf16)");
  EXPECT_EQ(error_of(replace(kProfile, "  capacity: 24GiB", "  capacity: 0GiB")),
            "dev.yaml:8:13: memory.capacity: expected a positive value, got '0GiB'");
  EXPECT_EQ(error_of("name: [dev\n"), "dev.yaml:2:1: YAML syntax error: end of sequence flow not found");
}

TEST(HardwareYaml, MissingFileIsAHardwareError) {
  EXPECT_THROW(load_hardware_file("/nonexistent/dev.yaml"), HardwareError);
}

}  // namespace
}  // namespace moesim::calibration
