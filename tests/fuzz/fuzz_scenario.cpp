// libFuzzer target: scenario YAML (scenarios/loader.h). Bad input must throw ScenarioError.
#include "scenarios/loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::scenarios::ScenarioError>(
      [&] { moesim::scenarios::load_scenario_string(moesim::fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
