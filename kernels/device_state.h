// What the GPU was doing while a case ran: its lowest SM and memory clocks and the reasons NVML
// gave for holding the clocks down, merged over the samples a benchmark takes (before, during and
// after its timed repetitions) and, for an all-to-all, over its GPUs. CPU backends, and GPUs
// without the driver's NVML library, report an unknown state.
#pragma once

#include <cstdint>
#include <string>

namespace moesim::kernels {

// NVML's clocks-event reason bits (nvml.h, nvmlClocksEventReason*, formerly
// nvmlClocksThrottleReason*: the same values under both names).
inline constexpr std::uint64_t kClocksGpuIdle = 0x1;                // nothing runs: clocks drop
inline constexpr std::uint64_t kClocksApplicationsSetting = 0x2;    // application clocks set below maximum
inline constexpr std::uint64_t kClocksSwPowerCap = 0x4;             // the power limit (normal under full load)
inline constexpr std::uint64_t kClocksHwSlowdown = 0x8;             // hardware slowdown (thermal or power brake)
inline constexpr std::uint64_t kClocksSyncBoost = 0x10;             // held with other GPUs of a sync-boost group
inline constexpr std::uint64_t kClocksSwThermalSlowdown = 0x20;     // driver thermal slowdown
inline constexpr std::uint64_t kClocksHwThermalSlowdown = 0x40;     // hardware thermal slowdown
inline constexpr std::uint64_t kClocksHwPowerBrakeSlowdown = 0x80;  // external power brake
inline constexpr std::uint64_t kClocksDisplaySetting = 0x100;       // display clock setting

struct DeviceState {
  bool known = false;         // false: no reading (CPU backend, or no NVML)
  int sm_clock_mhz = 0;       // lowest SM clock read
  int memory_clock_mhz = 0;   // lowest memory clock read
  std::uint64_t reasons = 0;  // every clocks-event reason bit read (OR)

  // Combines two sets of readings: lowest clocks, every reason. An unknown side changes nothing.
  void merge(const DeviceState& other);
};

// The reasons as ';'-separated names ("sw_power_cap;hw_thermal_slowdown"), "none" when there are
// none. gpu_idle is left out: a sample taken between repetitions sees an idle GPU, which says
// nothing about the timed work.
std::string clocks_reason_names(std::uint64_t reasons);

// Whether `reasons` include a slowdown that makes a timing unrepresentative of the device in
// service: thermal (driver or hardware), hardware slowdown, or power brake. The power limit
// (sw_power_cap) is how a GPU runs under full load in production too, and does not count.
bool throttled(std::uint64_t reasons);

}  // namespace moesim::kernels
