// HardwareProfile: what one accelerator can do, from spec sheets and, for profiles written by
// `moesim calibrate fit`, from measurements.
//
// Peak figures are dense (no structured sparsity). Each preset cites its source in
// calibration/profiles/*.yaml. Link figures here are the device's own ports; the cluster
// (topology/) decides how devices are wired. A measured profile may carry its own GEMM model
// parameters per operand dtype (`gemm_fits`, used by the `fitted` cost model instead of the
// DeepGEMM H800 fit) and the measured efficiency and latency of its scale-up all-to-all (used
// as the cluster's defaults when the scenario does not set them).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/gemm_efficiency.h"
#include "models/dtype.h"

namespace moesim::calibration {

struct HardwareProfile {
  std::string name;
  std::string source;
  int sm_count = 0;
  double peak_fp8_flops = 0;    // dense FLOP/s
  double peak_bf16_flops = 0;   // dense FLOP/s
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  double scaleup_bytes_per_s = 0;  // per direction
  double nic_bytes_per_s = 0;      // per direction, default NIC per device
  double peak_fp32_flops = 0;      // dense FP32 rate; 0: half the BF16 rate (TF32 tensor cores)

  // Measured (moesim calibrate fit); empty / unset on spec-sheet presets.
  struct GemmFit {
    models::DType dtype = models::DType::kBf16;  // fp8, bf16, fp16 or fp32
    GemmFitParams params;
  };
  std::vector<GemmFit> gemm_fits;
  std::optional<double> scaleup_efficiency;  // achieved / line rate of the scale-up all-to-all
  std::optional<double> scaleup_latency_ns;  // fixed cost of one scale-up all-to-all

  double peak_flops(models::DType t) const;
  // The measured GEMM parameters for operands of `t`: the fit of the same dtype (FP4 and INT8
  // use FP8's, FP16 falls back to BF16's and back), else none.
  const GemmFitParams* gemm_fit(models::DType t) const;
};

struct HardwarePresetInfo {
  std::string_view name;
  std::string_view description;
};

std::vector<HardwarePresetInfo> hardware_presets();
std::optional<HardwareProfile> find_hardware_preset(std::string_view name);

}  // namespace moesim::calibration
