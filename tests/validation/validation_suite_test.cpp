// The validation suite (scenarios/validation, moesim validate; docs/validation.md) in CI: every
// case runs and its error against the published figure must stay inside the band written here.
// Nothing is fitted to these cases; the bands record where the model stands and may only narrow
// as physics is added (a change that widens one has made the model worse there).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "scenarios/validation_suite.h"

namespace moesim {
namespace {

struct Band {
  double low, high;  // allowed (simulated - published) / published
};

// The bands, case by case (docs/validation.md gives the table they come from).
const std::map<std::string, Band> kBands = {
    {"d1-decode", {-0.05, 0.05}},       {"d1-overlap-gain", {-0.10, 0.10}}, {"d2-prefill-1k", {0.30, 0.55}},
    {"d2-prefill-2k", {0.35, 0.60}},    {"d2-prefill-4k", {0.40, 0.65}},    {"d2-prefill-4k-balanced", {0.20, 0.45}},
    {"d2-step-growth", {-0.60, -0.30}}, {"d3-trtllm-dep8", {0.35, 0.60}},
};

TEST(ValidationSuite, EveryCaseStaysInsideItsBand) {
  const auto suite = scenarios::load_validation_suite(std::string(MOESIM_SOURCE_DIR) + "/scenarios/validation");
  const auto report = scenarios::run_validation(suite);
  int guarded = 0;
  for (const auto& row : report.rows) {
    if (!row.error) continue;
    std::printf("  %-24s published %10.3f simulated %10.3f error %+6.1f %%\n", row.c->name.c_str(), *row.c->published,
                row.simulated, 100 * *row.error);
    const auto band = kBands.find(row.c->name);
    ASSERT_NE(band, kBands.end()) << row.c->name << " has a published figure but no band in this test";
    EXPECT_GE(*row.error, band->second.low) << row.c->name;
    EXPECT_LE(*row.error, band->second.high) << row.c->name;
    ++guarded;
  }
  EXPECT_EQ(guarded, static_cast<int>(kBands.size()));
  std::printf("  %d direct cases: median |error| %.1f %%, max %.1f %%\n", report.counted, 100 * report.median_abs_error,
              100 * report.max_abs_error);
}

}  // namespace
}  // namespace moesim
