// Test helper shared by the calibration/ tests: hardware presets by name.
#pragma once

#include <gtest/gtest.h>

#include "calibration/hardware_profile.h"

namespace moesim::calibration::test {

// The preset `name`; a test failure (and an empty profile) when there is none.
inline HardwareProfile preset(const char* name) {
  auto hw = find_hardware_preset(name);
  EXPECT_TRUE(hw.has_value()) << name;
  return hw.value_or(HardwareProfile{});
}

}  // namespace moesim::calibration::test
