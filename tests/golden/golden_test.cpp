// Golden scenarios (docs/design.md §6, docs/robustness.md): each tests/golden/scenarios/<name>.yaml is
// run by the built `moesim` and its summary.json must equal tests/golden/expected/<name>.json
// byte for byte, in every build (Release and the sanitizer build alike). The run's own output is
// left in <build>/golden/<name>/ for the cross-build comparison of `make sanitize`.
//
// After a deliberate change of the simulator's figures, regenerate them and review the diff:
//   MOESIM_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden      (or tools/update-golden)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace moesim {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(MOESIM_SOURCE_DIR) / "tests" / "golden";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "" when equal, else where the texts first differ, with a few lines of context.
std::string first_difference(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  const auto e = lines_of(expected), a = lines_of(actual);
  std::size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  std::ostringstream out;
  out << "first difference at line " << i + 1 << " (expected " << e.size() << " lines, got " << a.size() << "):\n";
  const std::size_t from = i >= 3 ? i - 3 : 0;
  for (std::size_t k = from; k < i; ++k) out << "    " << e[k] << "\n";
  for (std::size_t k = i; k < std::min(e.size(), i + 3); ++k) out << "  - " << e[k] << "\n";
  for (std::size_t k = i; k < std::min(a.size(), i + 3); ++k) out << "  + " << a[k] << "\n";
  if (i >= e.size() && i >= a.size()) out << "  (the texts differ only in their final newline)\n";
  return out.str();
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, SummaryMatchesTheCheckedInOne) {
  const std::string name = GetParam();
  const fs::path scenario = kGolden / "scenarios" / (name + ".yaml");
  const fs::path expected_file = kGolden / "expected" / (name + ".json");
  const fs::path out = fs::path(MOESIM_BUILD_DIR) / "golden" / name;
  fs::remove_all(out);
  const auto r = testing::run_moesim("run " + scenario.string() + " -q -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string actual = read_file(out / "summary.json");
  ASSERT_FALSE(actual.empty());
  const char* update = std::getenv("MOESIM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(expected_file, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << expected_file.string();
  }
  ASSERT_TRUE(fs::exists(expected_file)) << expected_file.string() << " is missing; create it with "
                                         << "MOESIM_UPDATE_GOLDEN=1 ctest -R Golden";
  const std::string diff = first_difference(read_file(expected_file), actual);
  EXPECT_EQ(diff, "") << name << ": summary.json differs from " << expected_file.string() << "\n"
                      << diff << "If the change is intended, regenerate with MOESIM_UPDATE_GOLDEN=1 ctest -R Golden "
                      << "and review the diff.";
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Golden,
                         ::testing::Values("colocated", "pd-disaggregated", "tbo-eplb-zipf", "supernode-nvl72",
                                           "speculative-mtp", "routing-trace", "dsv3-ep32-eplb-rebalance",
                                           "dsv3-decode-ll-rdma", "dsv3-pd-hierarchical", "dsv3-pipeline-pp2",
                                           "flow-fidelity", "tp-attention-moe", "speculative-draft"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(GoldenDiff, NamesTheFirstDifferingLine) {
  EXPECT_EQ(first_difference("a\nb\nc\n", "a\nb\nc\n"), "");
  EXPECT_EQ(first_difference("a\nb\nc\n", "a\nB\nc\n"),
            "first difference at line 2 (expected 3 lines, got 3):\n    a\n  - b\n  - c\n  + B\n  + c\n");
}

}  // namespace
}  // namespace moesim
