// RunLimits (sim/simulation.h): a bounded run stops cleanly, keeps what finished, says why.
#include <gtest/gtest.h>

#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

TEST(RunLimits, UnboundedRunIsComplete) {
  const auto r = simulate(testing::tiny_config(40));
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.partial_reason, "");
  EXPECT_EQ(r.summary.completed, 40);
}

TEST(RunLimits, MaxSimTimeStopsAtTheBoundWithPartialResults) {
  auto c = testing::tiny_config(40);  // 200 requests/s: the last arrives near 0.2 s
  const auto full = simulate(c);
  ASSERT_GT(full.summary.makespan_s, 0.1);
  c.limits.max_sim_time = Duration::from_seconds(0.1);
  const auto r = simulate(c);
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.partial_reason, "max-sim-time 0.1 s reached");
  EXPECT_GT(r.summary.completed, 0);
  EXPECT_LT(r.summary.completed, 40);
  // Everything that finished did so by the bound, exactly as in the full run.
  std::int64_t finished_by_bound = 0;
  for (std::size_t i = 0; i < r.requests.size(); ++i) {
    if (!r.requests[i].finished()) continue;
    EXPECT_LE(r.requests[i].finish_ns, 100'000'000);
    EXPECT_EQ(r.requests[i].finish_ns, full.requests[i].finish_ns);
    ++finished_by_bound;
  }
  EXPECT_EQ(finished_by_bound, r.summary.completed);
  for (const auto& s : r.steps) EXPECT_LE(s.start_ns, 100'000'000);
}

TEST(RunLimits, BoundBeyondTheEndChangesNothing) {
  auto c = testing::tiny_config(20);
  const auto full = simulate(c);
  c.limits.max_sim_time = Duration::from_seconds(3600);
  c.limits.max_wall_s = 3600;
  const auto r = simulate(c);
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.summary.completed, full.summary.completed);
  EXPECT_EQ(r.summary.e2e.p99_s, full.summary.e2e.p99_s);
  EXPECT_EQ(r.events, full.events);
}

TEST(RunLimits, ZeroWallTimeStopsBeforeTheFirstEvent) {
  auto c = testing::tiny_config(20);
  c.limits.max_wall_s = 0;
  const auto r = simulate(c);
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.partial_reason, "max-wall-time 0 s reached");
  EXPECT_EQ(r.events, 0u);
  EXPECT_EQ(r.summary.completed, 0);
}

}  // namespace
}  // namespace moesim::sim
