// libFuzzer target: binary routing traces (models/routing_trace.h). Bad input must throw
// ModelError; a trace that reads must serve every step's layer views.
#include <sstream>

#include "models/model_error.h"
#include "models/routing_trace.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::models::ModelError>([&] {
    std::istringstream in{std::string(moesim::fuzz::as_text(data, size))};
    const auto trace = moesim::models::read_routing_trace(in, "fuzz.moesimrt");
    for (std::size_t s = 0; s < trace.steps.size(); ++s)
      for (int l = 0; l < trace.header.moe_layers; ++l) {
        (void)trace.layer_ids(s, l);
        (void)trace.layer_weights(s, l);
      }
  });
  return 0;
}
