// Measured hardware profiles: the extra keys `moesim calibrate fit` writes load back exactly,
// malformed ones fail with file:line:column, and the `fitted` cost model uses a profile's own
// GEMM parameters (per dtype, with the fallbacks of HardwareProfile::gemm_fit).
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include "tests/text_replace.h"

#include <string>

#include "calibration/cost_model.h"
#include "calibration/fitted_cost_model.h"
#include "calibration/hardware_yaml.h"
#include "calibration/hardware_yaml_writer.h"

namespace moesim::calibration {
namespace {

const std::string kMeasured =
    "name: lab-gpu\n"                                // 1
    "source: test\n"                                 // 2
    "compute:\n"                                     // 3
    "  sm_count: 10\n"                               // 4
    "  fp8: 20TFLOPS\n"                              // 5
    "  bf16: 10TFLOPS\n"                             // 6
    "  fp32: 2TFLOPS\n"                              // 7
    "memory: {capacity: 24GiB, bandwidth: 1TB/s}\n"  // 8
    "network:\n"                                     // 9
    "  scaleup: 100GB/s\n"                           // 10
    "  nic: 200Gbps\n"                               // 11
    "  scaleup_efficiency: 0.75\n"                   // 12
    "  scaleup_latency: 12.5us\n"                    // 13
    "gemm:\n"                                        // 14
    "  bf16:\n"                                      // 15
    "    mma_fraction: 0.6\n"                        // 16
    "    hbm_fraction: 0.9\n"                        // 17
    "    fixed_overhead: 4us\n"                      // 18
    "    per_group_overhead: 1500ns\n"               // 19
    "    per_tile_overhead: 0.2us\n"                 // 20
    "    block_m: [64, 128]\n"                       // 21
    "    block_n: [128, 256]\n";                     // 22

std::string profile_error(const std::string& text) {
  return moesim::testing::thrown_message<HardwareError>([&] { load_hardware_yaml(text, "p.yaml"); });
}

using moesim::testing::replace;

TEST(MeasuredProfile, ReadsTheMeasuredKeys) {
  const HardwareProfile p = load_hardware_yaml(kMeasured, "p.yaml");
  EXPECT_EQ(p.peak_fp32_flops, 2e12);
  EXPECT_EQ(p.peak_flops(models::DType::kFp32), 2e12);
  EXPECT_EQ(p.scaleup_efficiency, 0.75);
  EXPECT_EQ(p.scaleup_latency_ns, 12500.0);
  ASSERT_EQ(p.gemm_fits.size(), 1u);
  const GemmFitParams& f = p.gemm_fits[0].params;
  EXPECT_EQ(p.gemm_fits[0].dtype, models::DType::kBf16);
  EXPECT_EQ(f.mma_fraction, 0.6);
  EXPECT_EQ(f.fixed_overhead_ns, 4000);
  EXPECT_EQ(f.per_group_overhead_ns, 1500);
  EXPECT_EQ(f.per_tile_overhead_ns, 200);
  EXPECT_EQ(f.block_n, (std::vector<int>{128, 256}));
  // Presets have none of it.
  const HardwareProfile h800 = *find_hardware_preset("h800");
  EXPECT_TRUE(h800.gemm_fits.empty());
  EXPECT_FALSE(h800.scaleup_efficiency.has_value());
  EXPECT_EQ(h800.peak_flops(models::DType::kFp32), h800.peak_bf16_flops / 2);
}

TEST(MeasuredProfile, WriterOutputLoadsBackWithTheSameFigures) {
  HardwareFile f = read_hardware_yaml(kMeasured, "p.yaml");
  f.profile.hbm_bytes = 25276059648;  // not a round number of GiB
  f.profile.peak_bf16_flops = 1.234567890123e13;
  f.profile.gemm_fits.push_back({models::DType::kFp8, f.profile.gemm_fits[0].params});
  f.profile.gemm_fits[1].params.per_tile_overhead_ns = 1.0 / 3;
  const std::string text = hardware_yaml_text(f, {{"first comment", "second"}, {{"compute.fp8", "a note"}}});
  EXPECT_EQ(text.rfind("# first comment\n# second\nname: lab-gpu\n", 0), 0u) << text;
  EXPECT_NE(text.find("fp8: 20TFLOPS  # a note\n"), std::string::npos) << text;
  const HardwareProfile back = load_hardware_yaml(text, "written.yaml");
  EXPECT_NEAR(back.hbm_bytes / f.profile.hbm_bytes, 1, 1e-9);
  EXPECT_NEAR(back.peak_bf16_flops / f.profile.peak_bf16_flops, 1, 1e-9);
  EXPECT_EQ(back.scaleup_latency_ns, 12500.0);
  ASSERT_EQ(back.gemm_fits.size(), 2u);
  EXPECT_EQ(back.gemm_fits[1].dtype, models::DType::kFp8);
  EXPECT_NEAR(back.gemm_fits[1].params.per_tile_overhead_ns * 3, 1, 1e-9);
  EXPECT_EQ(back.gemm_fits[1].params.block_m, (std::vector<int>{64, 128}));
}

TEST(MeasuredProfile, MalformedMeasuredKeys) {
  EXPECT_EQ(profile_error(replace(kMeasured, "mma_fraction: 0.6", "mma_fraction: 1.5")),
            "p.yaml:16:19: gemm.bf16.mma_fraction: expected a fraction in (0, 1], got '1.5'");
  EXPECT_EQ(profile_error(replace(kMeasured, "fixed_overhead: 4us", "fixed_overhead: 4")),
            "p.yaml:18:21: gemm.bf16.fixed_overhead: expected a duration with a unit (ns, us, ms, s, min, h), got '4'");
  EXPECT_EQ(profile_error(replace(kMeasured, "block_m: [64, 128]", "block_m: [64, 0]")),
            "p.yaml:21:19: gemm.bf16.block_m[1]: expected an integer in [1, 4096], got 0");
  EXPECT_EQ(profile_error(replace(kMeasured, "block_m: [64, 128]", "block_m: 64")),
            "p.yaml:21:14: gemm.bf16.block_m: expected a non-empty list of tile sizes");
  EXPECT_EQ(profile_error(replace(kMeasured, "  bf16:\n    mma", "  bf61:\n    mma")),
            "p.yaml:15:3: gemm.bf61: unknown key 'bf61'; did you mean 'bf16'?");
  EXPECT_EQ(profile_error(replace(kMeasured, "    per_tile_overhead: 0.2us\n", "")),
            "p.yaml:16:5: gemm.bf16: missing required key 'per_tile_overhead'");
  EXPECT_EQ(profile_error(replace(kMeasured, "scaleup_efficiency: 0.75", "scaleup_efficiency: 0")),
            "p.yaml:12:23: network.scaleup_efficiency: expected a fraction in (0, 1], got '0'");
}

TEST(MeasuredProfile, FittedCostModelUsesTheProfilesOwnParameters) {
  const HardwareProfile p = load_hardware_yaml(kMeasured, "p.yaml");
  const auto model = make_cost_model(CostModelKind::kFitted, p);
  const std::vector<std::int64_t> tokens = {100, 0, 300};
  const GemmDevice bf16{10, 10e12, 1e12};
  const GemmFitParams& mine = p.gemm_fits[0].params;
  EXPECT_DOUBLE_EQ(model->grouped_gemm(tokens, 4096, 2048, models::DType::kBf16).time_ns,
                   estimate_grouped_gemm(tokens, 4096, 2048, 2, GroupedLayout::kMasked, bf16, mine).time_ns);
  // fp16 falls back to the bf16 fit; fp8 (no fit of its own) to the profile's first fit.
  EXPECT_DOUBLE_EQ(model->gemm(512, 4096, 2048, models::DType::kFp16).time_ns,
                   estimate_gemm(512, 4096, 2048, 2, bf16, mine).time_ns);
  const GemmDevice fp8{10, 20e12, 1e12};
  EXPECT_DOUBLE_EQ(model->gemm(512, 4096, 2048, models::DType::kFp8).time_ns,
                   estimate_gemm(512, 4096, 2048, 1, fp8, mine).time_ns);
  EXPECT_DOUBLE_EQ(model->launch_overhead_ns(), 4000);
  // A preset keeps the DeepGEMM H800 fit.
  const HardwareProfile h800 = *find_hardware_preset("h800");
  const GemmDevice h800_fp8{h800.sm_count, h800.peak_fp8_flops, h800.hbm_bytes_per_s};
  EXPECT_DOUBLE_EQ(make_cost_model(CostModelKind::kFitted, h800)->gemm(512, 4096, 7168, models::DType::kFp8).time_ns,
                   estimate_gemm(512, 4096, 7168, 1, h800_fp8, deepgemm_h800_fit()).time_ns);
}

}  // namespace
}  // namespace moesim::calibration
