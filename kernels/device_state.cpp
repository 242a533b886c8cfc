#include "kernels/device_state.h"

#include <algorithm>
#include <utility>

namespace moesim::kernels {

void DeviceState::merge(const DeviceState& o) {
  if (!o.known) return;
  if (!known) {
    *this = o;
    return;
  }
  sm_clock_mhz = std::min(sm_clock_mhz, o.sm_clock_mhz);
  memory_clock_mhz = std::min(memory_clock_mhz, o.memory_clock_mhz);
  reasons |= o.reasons;
}

std::string clocks_reason_names(std::uint64_t reasons) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {kClocksApplicationsSetting, "applications_clocks_setting"},
      {kClocksSwPowerCap, "sw_power_cap"},
      {kClocksHwSlowdown, "hw_slowdown"},
      {kClocksSyncBoost, "sync_boost"},
      {kClocksSwThermalSlowdown, "sw_thermal_slowdown"},
      {kClocksHwThermalSlowdown, "hw_thermal_slowdown"},
      {kClocksHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {kClocksDisplaySetting, "display_clock_setting"},
  };
  std::string out;
  const auto append = [&](const char* name) {
    if (!out.empty()) out += ';';
    out += name;
  };
  std::uint64_t named = kClocksGpuIdle;
  for (const auto& [bit, name] : kNames) {
    named |= bit;
    if (reasons & bit) append(name);
  }
  if (reasons & ~named) append("other");
  return out.empty() ? "none" : out;
}

bool throttled(std::uint64_t reasons) {
  return (reasons &
          (kClocksHwSlowdown | kClocksSwThermalSlowdown | kClocksHwThermalSlowdown | kClocksHwPowerBrakeSlowdown)) != 0;
}

}  // namespace moesim::kernels
