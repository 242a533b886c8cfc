// libFuzzer target: model YAML (models/model_yaml.h). Bad input must throw ModelError; a model
// that loads must also answer the memory and parameter questions the simulator asks of it.
#include "models/model_yaml.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::models::ModelError>([&] {
    const auto spec = moesim::models::load_model_yaml(moesim::fuzz::as_text(data, size), "fuzz.yaml");
    (void)spec.kv_bytes_for_context(4096);
  });
  return 0;
}
