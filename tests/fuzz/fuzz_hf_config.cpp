// libFuzzer target: Hugging Face config.json (models/hf_config.h). Bad input must throw ModelError.
#include "models/hf_config.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::models::ModelError>([&] {
    const auto spec = moesim::models::load_hf_config_text(moesim::fuzz::as_text(data, size), "config.json");
    (void)spec.kv_bytes_for_context(4096);
  });
  return 0;
}
