// libFuzzer target: sweep YAML (scenarios/sweep.h). The sweep is named as if it lay in the
// scenario library, so `base: dsv3-h800-32gpu.yaml` resolves; small sweeps are also expanded and
// their paths checked. Bad input must throw ScenarioError.
#include "scenarios/sweep.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace moesim::scenarios;
  moesim::fuzz::expect_only<ScenarioError>([&] {
    const SweepSpec spec =
        load_sweep_string(moesim::fuzz::as_text(data, size), MOESIM_SOURCE_DIR "/scenarios/library/fuzz-sweep.yaml");
    if (sweep_size(spec) > 64) return;
    const auto points = expand_sweep(spec);
    check_sweep_paths(spec);
    if (!points.empty()) (void)point_scenario_yaml(spec, points.front(), "# fuzz\n");
  });
  return 0;
}
