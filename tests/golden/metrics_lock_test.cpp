// The metrics lock (tests/golden/metrics_lock.h): each library scenario and validation case is
// run and its key figures compared with tests/golden/metrics.lock to a relative 1e-6 (a run is
// reproducible bit for bit, so any change is a change of the model). Each test also writes its
// section to <build>/golden/lock/<id>.txt, from which tools/update-golden assembles a new lock.
// With MOESIM_UPDATE_GOLDEN=1 the comparison is skipped (the sections are still written).
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/golden/metrics_lock.h"

namespace moesim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kLockFile = fs::path(MOESIM_SOURCE_DIR) / "tests" / "golden" / "metrics.lock";
constexpr double kRelative = 1e-6;

std::string file_name(const std::string& id) {
  std::string s = id;
  for (char& c : s)
    if (c == '/') c = '.';
  return s;
}

bool updating() {
  const char* update = std::getenv("MOESIM_UPDATE_GOLDEN");
  return update != nullptr && std::string(update) == "1";
}

}  // namespace

// GoogleTest prints a parameter with this (the test's name shows the id too).
void PrintTo(const LockItem& item, std::ostream* os) { *os << item.id; }

namespace {

class MetricsLock : public ::testing::TestWithParam<LockItem> {};

TEST_P(MetricsLock, FiguresMatchTheLock) {
  const LockItem& item = GetParam();
  const Figures actual = lock_figures(item);
  const fs::path dir = fs::path(MOESIM_BUILD_DIR) / "golden" / "lock";
  fs::create_directories(dir);
  std::ofstream(dir / (file_name(item.id) + ".txt")) << "[" << item.id << "]\n" << format_section(actual);
  if (updating()) GTEST_SKIP() << "MOESIM_UPDATE_GOLDEN=1: section written for tools/update-golden";

  const auto lock = read_lock(kLockFile.string());
  const auto it = lock.find(item.id);
  ASSERT_NE(it, lock.end()) << item.id << " has no section in " << kLockFile.string()
                            << "; add it with tools/update-golden";
  const Figures& expected = it->second;
  ASSERT_EQ(expected.size(), actual.size()) << item.id << ": the lock lists other figures; run tools/update-golden";
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const auto& [name, value] = actual[i];
    EXPECT_EQ(expected[i].first, name) << item.id;
    const double want = expected[i].second;
    EXPECT_LE(std::abs(value - want), kRelative * std::max(std::abs(want), 1e-9))
        << item.id << " " << name << ": " << value << " against the locked " << want << " ("
        << (want != 0 ? 100 * (value - want) / want : 0.0) << " %). If the change is intended, run "
        << "tools/update-golden and commit the new lock with it.";
  }
}

INSTANTIATE_TEST_SUITE_P(Items, MetricsLock, ::testing::ValuesIn(lock_items()),
                         [](const ::testing::TestParamInfo<LockItem>& info) {
                           std::string s = info.param.id;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s;
                         });

// Every section of the lock belongs to a scenario or case that still exists.
TEST(MetricsLockFile, HasNoStaleSections) {
  if (updating()) GTEST_SKIP() << "MOESIM_UPDATE_GOLDEN=1";
  std::set<std::string> ids;
  for (const auto& item : lock_items()) ids.insert(item.id);
  for (const auto& [id, figures] : read_lock(kLockFile.string()))
    EXPECT_TRUE(ids.count(id)) << "section [" << id << "] of " << kLockFile.string()
                               << " names no scenario or case; run tools/update-golden";
}

TEST(MetricsLockFile, ReadsSectionsAndRejectsMalformedLines) {
  const fs::path p = fs::path(MOESIM_BUILD_DIR) / "golden" / "lock_format_test.txt";
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "# comment\n[a/b]\nx 1.5  # trailing\ny -2e-3\n\n[c]\nz 0\n";
  const auto lock = read_lock(p.string());
  ASSERT_EQ(lock.size(), 2u);
  ASSERT_EQ(lock.at("a/b").size(), 2u);
  EXPECT_EQ(lock.at("a/b")[1].first, "y");
  EXPECT_DOUBLE_EQ(lock.at("a/b")[1].second, -2e-3);
  std::ofstream(p) << "[a]\nx 1 2\n";
  try {
    read_lock(p.string());
    FAIL() << "a line with two values was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), p.string() + ":2: expected 'figure value' inside a section");
  }
  std::ofstream(p) << "x 1\n";
  EXPECT_THROW(read_lock(p.string()), std::runtime_error);
}

}  // namespace
}  // namespace moesim::testing
