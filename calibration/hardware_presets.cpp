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

// NVIDIA H200 SXM: the H100 SXM5 compute die with 141 GB of HBM3e at 4.8 TB/s, NVLink 4 at
// 900 GB/s aggregate. Source: NVIDIA H200 Tensor Core GPU datasheet (dense = half the sparse
// figures: FP8 3,958 -> 1,979 TFLOPS, BF16 1,979 -> 989 TFLOPS).
HardwareProfile h200() {
  HardwareProfile p = h100();
  p.name = "h200";
  p.source = "NVIDIA H200 Tensor Core GPU datasheet (SXM column)";
  p.hbm_bytes = 141.0 * 1024 * 1024 * 1024;  // "141 GB" as the driver reports it, in GiB
  p.hbm_bytes_per_s = 4.8e12;
  return p;
}

// NVIDIA B200 in an HGX/DGX B200 (8 GPUs): 148 SMs, dense FP8 4.5 PFLOPS and BF16 2.25 PFLOPS
// (half the sparse 9 and 4.5), 180 GB HBM3e at 8 TB/s per GPU, NVLink 5 at 1.8 TB/s aggregate
// (900 GB/s per direction), one 400 Gb/s ConnectX-7 per GPU. Source: NVIDIA DGX B200 datasheet
// (72 PFLOPS FP8 sparse, 1,440 GB and 64 TB/s HBM for 8 GPUs) and the Blackwell architecture
// technical brief.
HardwareProfile b200() {
  HardwareProfile p;
  p.name = "b200";
  p.source = "NVIDIA DGX B200 datasheet (per-GPU share); Blackwell architecture technical brief";
  p.sm_count = 148;
  p.peak_fp8_flops = 4.5e15;
  p.peak_bf16_flops = 2.25e15;
  p.hbm_bytes = 180.0 * 1024 * 1024 * 1024;
  p.hbm_bytes_per_s = 8e12;
  p.scaleup_bytes_per_s = 900e9;
  p.nic_bytes_per_s = 50e9;
  return p;
}

// NVIDIA GB200 (one Blackwell GPU of a GB200 NVL72 rack): dense FP8 5 PFLOPS and BF16 2.5
// PFLOPS, 186 GB HBM3e at 8 TB/s, NVLink 5 at 1.8 TB/s aggregate, one 400 Gb/s NIC per GPU.
// Source: NVIDIA GB200 NVL72 datasheet divided by its 72 GPUs (720 PFLOPS FP8 sparse,
// 13.4 TB and 576 TB/s of HBM3e, 130 TB/s NVLink).
HardwareProfile gb200() {
  HardwareProfile p = b200();
  p.name = "gb200";
  p.source = "NVIDIA GB200 NVL72 datasheet, per-GPU share";
  p.peak_fp8_flops = 5e15;
  p.peak_bf16_flops = 2.5e15;
  p.hbm_bytes = 13.4e12 / 72;
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
    {{"h200", "NVIDIA H200 SXM: 132 SMs, 1979 TFLOPS FP8, 141 GB HBM3e 4.8 TB/s, NVLink 450 GB/s/dir"},
     &h200},
    {{"b200", "NVIDIA B200 (HGX): 148 SMs, 4.5 PFLOPS FP8, 180 GB HBM3e 8 TB/s, NVLink 900 GB/s/dir"},
     &b200},
    {{"gb200", "NVIDIA GB200 (NVL72 GPU): 5 PFLOPS FP8, 186 GB HBM3e 8 TB/s, NVLink 900 GB/s/dir"},
     &gb200},
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
