// libFuzzer target: hardware profile YAML (calibration/hardware_yaml.h). Bad input must throw
// HardwareError.
#include "calibration/hardware_yaml.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::calibration::HardwareError>(
      [&] { moesim::calibration::read_hardware_yaml(moesim::fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
