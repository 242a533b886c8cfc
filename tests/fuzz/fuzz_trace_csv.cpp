// libFuzzer target: request traces as CSV (workloads/trace_replay.h). Bad input must throw
// WorkloadError.
#include <sstream>

#include "tests/fuzz/fuzz_support.h"
#include "workloads/trace_replay.h"
#include "workloads/workload_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  moesim::fuzz::expect_only<moesim::workloads::WorkloadError>([&] {
    std::istringstream in{std::string(moesim::fuzz::as_text(data, size))};
    (void)moesim::workloads::parse_request_trace_csv(in, "fuzz.csv");
  });
  return 0;
}
