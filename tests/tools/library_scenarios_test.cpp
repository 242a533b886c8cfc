// Every scenario shipped in scenarios/library and scenarios/validation runs end to end (short
// variants: few requests, short outputs) and completes every request.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
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

// Steps computed on several threads (run --threads) change no output, to the byte: every
// shipped, golden and benchmark scenario (short variants). Kept draws: ParallelSteps.*.
TEST(LibraryScenarios, ThreadsChangeNoOutput) {
  const auto out = fs::temp_directory_path() / ("moesim_threads_" + std::to_string(::getpid()));
  const fs::path root(MOESIM_SOURCE_DIR);
  int compared = 0;
  for (const fs::path& folder : {root / "scenarios/library", root / "scenarios/validation",
                                 root / "tests/golden/scenarios", root / "tools/bench/scenarios"}) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() != ".yaml" || entry.path().filename() == "cases.yaml") continue;
      {
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        if (text.find("\nworkload:") == std::string::npos) continue;  // a model the golden scenarios use
      }
      std::string files[2][3];
      for (const int threads : {1, 3}) {
        const auto dir = out / (entry.path().stem().string() + "_" + std::to_string(threads));
        const auto r = moesim::testing::run_moesim("run -q " + entry.path().string() +
                                                   " --set workload.requests=60 --set workload.output_tokens.dist=fixed"
                                                   " --set workload.output_tokens.value=12 --threads " +
                                                   std::to_string(threads) + " -o " + dir.string());
        ASSERT_EQ(r.exit_code, 0) << entry.path() << " --threads " << threads << "\n" << r.out;
        const char* names[] = {"summary.json", "steps.csv", "requests.csv"};
        for (int f = 0; f < 3; ++f) {
          std::ifstream in(dir / names[f], std::ios::binary);
          files[threads == 1 ? 0 : 1][f].assign(std::istreambuf_iterator<char>(in), {});
        }
      }
      for (int f = 0; f < 3; ++f) {
        EXPECT_FALSE(files[0][f].empty()) << entry.path() << " file " << f;
        EXPECT_TRUE(files[0][f] == files[1][f]) << entry.path() << " file " << f;
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 40);
  fs::remove_all(out);
}

}  // namespace
