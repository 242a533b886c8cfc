// Every scenario shipped in scenarios/library and scenarios/validation runs end to end (short
// variants: few requests, short outputs) and completes every request.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;

TEST(LibraryScenarios, EveryShippedScenarioRunsShort) {
  const auto out = fs::temp_directory_path() / ("moesim_library_" + std::to_string(::getpid()));
  int ran = 0;
  for (const char* folder : {"library", "validation"}) {
    for (const auto& entry : fs::directory_iterator(fs::path(MOESIM_SOURCE_DIR) / "scenarios" / folder)) {
      // cases.yaml is the validation suite's manifest, not a scenario.
      if (entry.path().extension() != ".yaml" || entry.path().filename() == "cases.yaml") continue;
      const auto dir = out / entry.path().stem();
      const auto r = moesim::testing::run_moesim("run -q " + entry.path().string() +
                                                 " --set workload.requests=24 --set workload.output_tokens.dist=fixed"
                                                 " --set workload.output_tokens.value=8 -o " +
                                                 dir.string());
      ASSERT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.out;
      std::ifstream in(dir / "summary.json");
      const auto j = nlohmann::json::parse(in);
      EXPECT_EQ(j.at("requests").at("completed").get<int>(), 24) << entry.path();
      EXPECT_GT(j.at("throughput").at("output_tokens_per_gpu_s").get<double>(), 0.0) << entry.path();
      ++ran;
    }
  }
  EXPECT_GE(ran, 9);
  fs::remove_all(out);
}

}  // namespace
