// Which tensor units run a GEMM, by its weights' format and the device (hardware_profile.h).
#include <array>

#include "calibration/hardware_profile.h"

namespace moesim::calibration {
namespace {

// The units a device without `wanted` falls back to, in order (hardware_profile.h): FP4 weights
// are converted to FP8 (Hopper) or INT8 (W4A8 on Ascend), else to BF16; FP8 checkpoints are
// requantised to INT8 (Ascend: CloudMatrix-Infer serves DeepSeek-R1 as W8A8 INT8) or run
// weight-only on BF16 units; INT8 on FP8 units where INT8 is gone (Blackwell Ultra).
std::array<Units, 3> fallback_chain(Units wanted) {
  switch (wanted) {
    case Units::kFp4: return {Units::kFp8, Units::kInt8, Units::kBf16};
    case Units::kFp8: return {Units::kInt8, Units::kBf16, Units::kBf16};
    case Units::kInt8: return {Units::kFp8, Units::kBf16, Units::kBf16};
    case Units::kBf16:
    case Units::kFp32: break;
  }
  return {Units::kBf16, Units::kBf16, Units::kBf16};
}

Units operand_units(models::DType t) {
  switch (t) {
    case models::DType::kNvfp4: return Units::kFp4;
    case models::DType::kMxfp4:  // W4A8 (hardware_profile.h)
    case models::DType::kFp8: return Units::kFp8;
    case models::DType::kInt8: return Units::kInt8;
    case models::DType::kBf16:
    case models::DType::kFp16: return Units::kBf16;
    case models::DType::kFp32: return Units::kFp32;
  }
  return Units::kBf16;
}

}  // namespace

std::optional<Units> parse_units(std::string_view name) {
  for (const Units u : {Units::kFp4, Units::kFp8, Units::kInt8, Units::kBf16, Units::kFp32})
    if (to_string(u) == name) return u;
  return std::nullopt;
}

std::string_view to_string(Units u) {
  switch (u) {
    case Units::kFp4: return "fp4";
    case Units::kFp8: return "fp8";
    case Units::kInt8: return "int8";
    case Units::kBf16: return "bf16";
    case Units::kFp32: return "fp32";
  }
  return "?";
}

double HardwareProfile::units_peak(Units u) const {
  switch (u) {
    case Units::kFp4: return peak_fp4_flops;
    case Units::kFp8: return peak_fp8_flops;
    case Units::kInt8: return peak_int8_flops;
    case Units::kBf16: return peak_bf16_flops;
    case Units::kFp32: return peak_fp32_flops > 0 ? peak_fp32_flops : peak_bf16_flops / 2;  // TF32
  }
  return peak_bf16_flops;
}

Units HardwareProfile::units(models::DType t) const {
  const Units wanted = operand_units(t);
  if (has_units(wanted)) return wanted;
  const std::optional<Units> chosen = runs_as[static_cast<std::size_t>(wanted)];
  if (chosen && has_units(*chosen)) return *chosen;
  for (const Units u : fallback_chain(wanted))
    if (has_units(u)) return u;
  return Units::kBf16;
}

}  // namespace moesim::calibration
