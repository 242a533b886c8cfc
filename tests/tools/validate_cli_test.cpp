// `moesim validate --set`: an override reaches every case's scenario after the case's own, so the
// whole suite runs in another mode (here the kept-draws mode of routing.reuse_draws), and a bad
// override is a usage error naming the flag.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

const std::string kSuite = std::string(MOESIM_SOURCE_DIR) + "/scenarios/validation";

// The simulated figure of d1-decode (a fixed decode batch, docs/validation.md), as `validate -o`
// writes it.
double d1_decode(const fs::path& out, const std::string& extra) {
  const auto r = run_moesim("validate " + kSuite + " --case d1-decode -o " + out.string() + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(out / "validation.json");
  const auto j = nlohmann::json::parse(in);
  return j["cases"][0]["simulated"].get<double>();
}

TEST(ValidateCli, SetRunsEveryCaseInTheKeptDrawsModeAndKeepsTheFigure) {
  const fs::path dir = fs::temp_directory_path() / "moesim-validate-set";
  fs::remove_all(dir);
  const double exact = d1_decode(dir / "exact", "");
  const double kept = d1_decode(dir / "kept", "--set routing.reuse_draws=8");
  const double exact_again = d1_decode(dir / "again", "--set routing.reuse_draws=0");
  fs::remove_all(dir);
  EXPECT_EQ(exact, exact_again);  // 0 is the exact mode, bit for bit
  EXPECT_NE(exact, kept);         // the override reached the case: its draws were replayed
  // The kept draws keep the law of a fresh draw: the figure moves by sampling noise only.
  EXPECT_LT(std::abs(kept / exact - 1), 0.005) << exact << " vs " << kept;
}

TEST(ValidateCli, BadOverrideExitsTwoNamingTheFlag) {
  const auto r = run_moesim("validate " + kSuite + " --case d1-decode --set routing.reuse_drawz=8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out,
            "moesim: --set routing.reuse_drawz=8: routing.reuse_drawz: unknown key 'reuse_drawz'; did you mean "
            "'reuse_draws'?\n");
}

}  // namespace
