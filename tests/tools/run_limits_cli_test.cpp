// `moesim run --max-sim-time / --max-wall-time`: a bounded run stops cleanly, writes its outputs
// and marks them partial (summary.json and the text summary); bad flag values are usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

const std::string kLimitsScenario = std::string(MOESIM_SOURCE_DIR) + "/tests/golden/scenarios/colocated.yaml";

class RunLimitsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("moesim-limits-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  nlohmann::json summary() const {
    std::ifstream in(dir_ / "summary.json");
    return nlohmann::json::parse(in);
  }
  fs::path dir_;
};

TEST_F(RunLimitsCli, MaxSimTimeWritesPartialResults) {
  const auto r = run_moesim("run " + kLimitsScenario + " -o " + dir_.string() + " --max-sim-time 50ms");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = summary();
  EXPECT_EQ(j["partial"], true);
  EXPECT_EQ(j["partial_reason"], "max-sim-time 0.05 s reached");
  const auto completed = j["requests"]["completed"].get<int>();
  EXPECT_GT(completed, 0);
  EXPECT_LT(completed, 80);
  EXPECT_NE(r.out.find("PARTIAL RESULTS: the run stopped early (max-sim-time 0.05 s reached); " +
                       std::to_string(completed) + " of 80 requests had finished"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "steps.csv"));
}

TEST_F(RunLimitsCli, GenerousBoundsGiveACompleteRun) {
  const auto r =
      run_moesim("run " + kLimitsScenario + " -q -o " + dir_.string() + " --max-sim-time 1h --max-wall-time 10min");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = summary();
  EXPECT_EQ(j["partial"], false);
  EXPECT_FALSE(j.contains("partial_reason"));
  EXPECT_EQ(j["requests"]["completed"], 80);
}

TEST_F(RunLimitsCli, BadBoundsAreUsageErrors) {
  auto r = run_moesim("run " + kLimitsScenario + " -o " + dir_.string() + " --max-wall-time abc");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: --max-wall-time: expected a duration with a unit (ns, us, ms, s, min, h), got 'abc'\n");
  r = run_moesim("run " + kLimitsScenario + " -o " + dir_.string() + " --max-sim-time 0s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: --max-sim-time: expected a positive duration below 292 years, got '0s'\n");
  EXPECT_FALSE(fs::exists(dir_));  // refused before anything ran or was written
}

}  // namespace
