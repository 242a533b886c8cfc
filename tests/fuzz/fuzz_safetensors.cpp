// libFuzzer target: safetensors files (models/functional/safetensors.h). The input is written to
// a scratch file and opened; every tensor of up to 1 MiB is read. Bad input must throw ModelError.
#include <vector>

#include "models/functional/safetensors.h"
#include "models/model_error.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace moesim::models;
  const auto path = moesim::fuzz::write_scratch("fuzz.safetensors", moesim::fuzz::as_text(data, size));
  moesim::fuzz::expect_only<ModelError>([&] {
    const functional::SafetensorsFile file(path);
    std::vector<float> out;
    for (const auto& [name, t] : file.tensors()) {
      if (t.end - t.begin > (1u << 20)) continue;
      out.assign(static_cast<std::size_t>(t.elements()), 0.0f);
      file.read(t, out.data());
    }
  });
  return 0;
}
