#include "calibration/hardware_profile.h"

namespace moesim::calibration {
namespace {

// NVIDIA H800 SXM5 (the export variant of H100 SXM5): same SM array and HBM3 as H100 SXM5, NVLink
// cut to 400 GB/s aggregate (200 GB/s per direction). Sources: NVIDIA H100 Tensor Core GPU
// datasheet (dense FP8 1,979 TFLOPS, dense BF16 989 TFLOPS, 3.35 TB/s, 132 SMs) and DeepSeek-V3
// technical report §3.1 (H800 NVLink 160 GB/s achievable, 400 Gb/s InfiniBand per GPU).
// Memory: 81,559 MiB as reported by the driver for an "80 GB" H100/H800.
HardwareProfile h800() {
  HardwareProfile p;
  p.name = "h800";
  p.source = "NVIDIA H100 datasheet (SXM5 column); DeepSeek-V3 tech report §3.1 for NVLink/IB";
  p.sm_count = 132;
  p.peak_fp8_flops = 1979e12;
  p.peak_bf16_flops = 989e12;
  p.hbm_bytes = 81559.0 * 1024 * 1024;
  p.hbm_bytes_per_s = 3.35e12;
  p.scaleup_bytes_per_s = 200e9;
  p.nic_bytes_per_s = 50e9;
  return p;
}

// NVIDIA H100 SXM5: NVLink 4 at 900 GB/s aggregate (450 GB/s per direction).
// Source: NVIDIA H100 Tensor Core GPU datasheet.
HardwareProfile h100() {
  HardwareProfile p = h800();
  p.name = "h100";
  p.source = "NVIDIA H100 Tensor Core GPU datasheet (SXM5 column)";
  p.scaleup_bytes_per_s = 450e9;
  return p;
}

struct Entry {
  HardwarePresetInfo info;
  HardwareProfile (*make)();
};

constexpr Entry kPresets[] = {
    {{"h800", "NVIDIA H800 SXM5: 132 SMs, 1979 TFLOPS FP8, 80 GB HBM3 3.35 TB/s, NVLink 200 GB/s/dir"},
     &h800},
    {{"h100", "NVIDIA H100 SXM5: 132 SMs, 1979 TFLOPS FP8, 80 GB HBM3 3.35 TB/s, NVLink 450 GB/s/dir"},
     &h100},
};

}  // namespace

double HardwareProfile::peak_flops(models::DType t) const {
  switch (t) {
    case models::DType::kFp4:  // no FP4 tensor cores on Hopper: runs as FP8
    case models::DType::kFp8:
    case models::DType::kInt8: return peak_fp8_flops;
    case models::DType::kBf16:
    case models::DType::kFp16: return peak_bf16_flops;
    case models::DType::kFp32: return peak_bf16_flops / 2;  // TF32 tensor-core rate
  }
  return peak_bf16_flops;
}

std::vector<HardwarePresetInfo> hardware_presets() {
  std::vector<HardwarePresetInfo> out;
  for (const auto& e : kPresets) out.push_back(e.info);
  return out;
}

std::optional<HardwareProfile> find_hardware_preset(std::string_view name) {
  for (const auto& e : kPresets)
    if (e.info.name == name) return e.make();
  return std::nullopt;
}

}  // namespace moesim::calibration
