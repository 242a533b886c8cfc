#include "tools/seed_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace moesim::tools {
namespace {

TEST(ConfidenceInterval, UsesStudentsTForSmallSamples) {
  const auto ci = confidence_interval({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(ci.mean, 2.5);
  const double sd = std::sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3.0);
  EXPECT_NEAR(ci.half_width, 3.182 * sd / 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(confidence_interval({7}).half_width, 0.0);
  EXPECT_DOUBLE_EQ(confidence_interval({5, 5, 5}).half_width, 0.0);
}

TEST(Seeds, ReplicatesOverSeedsAndWritesIntervals) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("moesim_seeds_test_" + std::to_string(::getpid()));
  const auto r = moesim::testing::run_moesim(
      "run -q " + std::string(MOESIM_SOURCE_DIR) + "/scenarios/library/dsv3-h800-32gpu.yaml" +
      " --set workload.requests=60 --set workload.output_tokens.value=20 --seeds 3 -o " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(dir / "seeds.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("replications").get<int>(), 3);
  const auto& samples = j.at("metrics").at("ttft_p90").at("samples");
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_NE(samples[0].get<double>(), samples[1].get<double>());  // different seeds, different draws
  EXPECT_GT(j.at("metrics").at("ttft_p90").at("ci95_half_width").get<double>(), 0.0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace moesim::tools
