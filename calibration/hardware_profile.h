// HardwareProfile: what one accelerator can do, from spec sheets (and later, measurements).
//
// Peak figures are dense (no structured sparsity). Each preset cites its source in
// calibration/hardware_presets.cpp. Link figures here are the device's own ports; the cluster
// (topology/) decides how devices are wired.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

  double peak_flops(models::DType t) const;
};

struct HardwarePresetInfo {
  std::string_view name;
  std::string_view description;
};

std::vector<HardwarePresetInfo> hardware_presets();
std::optional<HardwareProfile> find_hardware_preset(std::string_view name);

}  // namespace moesim::calibration
