// One die of a multi-die package as a device of its own (hardware_profile.h).
#include "calibration/hardware_profile.h"

namespace moesim::calibration {

HardwareProfile die_of(const HardwareProfile& package) {
  if (package.dies <= 1) return package;
  HardwareProfile d = package;
  const double n = package.dies;
  d.name = package.name + "/die";
  d.sm_count = package.sm_count / package.dies;
  d.peak_fp4_flops /= n;
  d.peak_fp8_flops /= n;
  d.peak_int8_flops /= n;
  d.peak_bf16_flops /= n;
  d.peak_fp32_flops /= n;
  d.hbm_bytes /= n;
  d.hbm_bytes_per_s /= n;
  d.scaleup_bytes_per_s /= n;
  d.nic_bytes_per_s /= n;
  d.board_power_w /= n;
  d.idle_power_w /= n;
  d.dies = 1;
  d.die_link_bytes_per_s = 0;
  return d;
}

}  // namespace moesim::calibration
