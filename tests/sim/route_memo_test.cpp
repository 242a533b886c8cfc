// RouteMemo (sim/route_memo.h): keyed draws kept and replayed; and the reuse_draws mode against
// the exact one on the figures users read.
#include "sim/route_memo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

const std::vector<std::int64_t> kTokens = {3, 5, 8};

TEST(RouteMemo, KeepsDrawsUntilFullThenReplaysThem) {
  RouteMemo memo(3, 2);
  workloads::Rng rng = workloads::make_stream(1, "memo");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(memo.find(0, 7, kTokens, rng), nullptr) << "draw " << i << " must be fresh";
    memo.keep().total_pairs = 100 + i;
  }
  std::vector<int> seen(3, 0);
  for (int i = 0; i < 3000; ++i) {
    const RouteOutcome* o = memo.find(0, 7, kTokens, rng);
    ASSERT_NE(o, nullptr);
    ++seen[static_cast<std::size_t>(o->total_pairs - 100)];
  }
  // A uniform choice: each of the three kept draws about 1000 times (binomial sd ~26).
  for (int n : seen) EXPECT_NEAR(n, 1000, 130);
  EXPECT_EQ(memo.hits(), 3000);
  EXPECT_EQ(memo.misses(), 3);
}

TEST(RouteMemo, AnotherLayerVersionOrTokensIsAnotherKey) {
  RouteMemo memo(1, 2);
  workloads::Rng rng = workloads::make_stream(1, "memo");
  ASSERT_EQ(memo.find(0, 7, kTokens, rng), nullptr);
  memo.keep().total_pairs = 1;
  EXPECT_NE(memo.find(0, 7, kTokens, rng), nullptr);
  EXPECT_EQ(memo.find(1, 7, kTokens, rng), nullptr) << "another layer";
  memo.keep();
  EXPECT_EQ(memo.find(0, 8, kTokens, rng), nullptr) << "another law version";
  memo.keep();
  const std::vector<std::int64_t> other = {3, 5, 9};
  EXPECT_EQ(memo.find(0, 7, other, rng), nullptr) << "other tokens per rank";
  memo.keep();
  const RouteOutcome* o = memo.find(0, 7, kTokens, rng);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->total_pairs, 1);
}

TEST(RouteMemo, EvictsTheLeastRecentlyUsedKey) {
  RouteMemo memo(1, 1);
  workloads::Rng rng = workloads::make_stream(1, "memo");
  for (std::uint64_t v = 0; v < RouteMemo::kKeysPerLayer; ++v) {
    ASSERT_EQ(memo.find(0, v, kTokens, rng), nullptr);
    memo.keep();
  }
  ASSERT_NE(memo.find(0, 0, kTokens, rng), nullptr);  // key 0 used again: key 1 is now the oldest
  ASSERT_EQ(memo.find(0, 100, kTokens, rng), nullptr);
  memo.keep();
  EXPECT_NE(memo.find(0, 0, kTokens, rng), nullptr) << "recently used: kept";
  EXPECT_EQ(memo.find(0, 1, kTokens, rng), nullptr) << "least recently used: evicted";
}

TEST(RouteMemo, OffWithoutDraws) { EXPECT_FALSE(RouteMemo(0, 4).enabled()); }

// The figures a user reads of one run.
struct Figures {
  double throughput, ttft_p50, ttft_p90, tpot_p50, tpot_p90;
  std::vector<double> phase_ms;  // per step, summed over layers: each phase
};

Figures figures(const SimulationResult& r) {
  Figures f{r.summary.output_tokens_per_gpu_s,
            r.summary.ttft.p50_s,
            r.summary.ttft.p90_s,
            r.summary.tpot.p50_s,
            r.summary.tpot.p90_s,
            {}};
  const PoolResult& p = r.pools.front();
  f.phase_ms.assign(static_cast<std::size_t>(kNumPhases), 0.0);
  for (const auto& layer : p.breakdown.layer_ns)
    for (std::size_t k = 0; k < f.phase_ms.size(); ++k) f.phase_ms[k] += layer[static_cast<int>(k)] * 1e-6;
  for (auto& v : f.phase_ms) v /= static_cast<double>(std::max<std::int64_t>(1, p.steps));
  return f;
}

SimulationConfig skewed_decode(std::uint64_t seed) {
  SimulationConfig c = testing::dsv3_config(2, 240, 400, 300, 120);
  c.routing.model = workloads::RoutingModelKind::kZipf;
  c.routing.s = 0.9;
  c.seed = seed;
  return c;
}

// Stated tolerance of reuse_draws 8 (docs/scenario-reference.md, "routing"): over four seeds, the
// mean of each figure within 1 % of the exact mode's, and each phase of the per-layer split
// within 2 %.
TEST(RouteMemo, ReusedDrawsKeepWhatUsersReadAcrossSeeds) {
  constexpr int kSeeds = 4;
  Figures exact{}, reused{};
  exact.phase_ms.assign(static_cast<std::size_t>(kNumPhases), 0.0);
  reused.phase_ms = exact.phase_ms;
  bool any_differs = false;
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    SimulationConfig c = skewed_decode(seed);
    const Figures a = figures(simulate(c));
    c.routing.reuse_draws = 8;
    const Figures b = figures(simulate(c));
    any_differs = any_differs || a.tpot_p50 != b.tpot_p50;
    for (auto [sum, one] : {std::pair{&exact, &a}, std::pair{&reused, &b}}) {
      sum->throughput += one->throughput / kSeeds;
      sum->ttft_p50 += one->ttft_p50 / kSeeds;
      sum->ttft_p90 += one->ttft_p90 / kSeeds;
      sum->tpot_p50 += one->tpot_p50 / kSeeds;
      sum->tpot_p90 += one->tpot_p90 / kSeeds;
      for (std::size_t k = 0; k < sum->phase_ms.size(); ++k) sum->phase_ms[k] += one->phase_ms[k] / kSeeds;
    }
  }
  EXPECT_TRUE(any_differs) << "the reused draws must actually be replayed";
  EXPECT_NEAR(reused.throughput / exact.throughput, 1.0, 0.01);
  EXPECT_NEAR(reused.ttft_p50 / exact.ttft_p50, 1.0, 0.01);
  EXPECT_NEAR(reused.ttft_p90 / exact.ttft_p90, 1.0, 0.01);
  EXPECT_NEAR(reused.tpot_p50 / exact.tpot_p50, 1.0, 0.01);
  EXPECT_NEAR(reused.tpot_p90 / exact.tpot_p90, 1.0, 0.01);
  for (std::size_t k = 0; k < exact.phase_ms.size(); ++k) {
    if (exact.phase_ms[k] <= 0) continue;
    EXPECT_NEAR(reused.phase_ms[k] / exact.phase_ms[k], 1.0, 0.02) << "phase " << k;
  }
}

TEST(RouteMemo, ReusedDrawsAreReproducibleFromTheSeed) {
  SimulationConfig c = skewed_decode(5);
  c.routing.reuse_draws = 4;
  const auto a = simulate(c), b = simulate(c);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) ASSERT_EQ(a.steps[i].duration_ns, b.steps[i].duration_ns);
}

// A law that changes every step (dirichlet drift updated every step) is never replayed: the run is
// the exact one, bit for bit.
TEST(RouteMemo, ALawThatChangesEveryStepIsNeverReplayed) {
  SimulationConfig c = skewed_decode(2);
  c.routing.model = workloads::RoutingModelKind::kDirichletDrift;
  c.routing.drift_interval_steps = 1;
  const auto exact = simulate(c);
  c.routing.reuse_draws = 4;
  const auto reused = simulate(c);
  ASSERT_EQ(exact.steps.size(), reused.steps.size());
  for (std::size_t i = 0; i < exact.steps.size(); ++i)
    ASSERT_EQ(exact.steps[i].duration_ns, reused.steps[i].duration_ns);
}

}  // namespace
}  // namespace moesim::sim
