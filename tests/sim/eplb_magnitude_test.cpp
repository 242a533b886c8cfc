// EPLB and rebalancing against the magnitudes they must give, derived by hand, not only the
// direction of the change.
//
// Case: 16 experts, top-2, EP 8, hot-set routing with 4 hot experts taking half the pairs: each
// hot expert 1/8 of the pairs, each of the 12 cold ones 1/24.
//  - contiguous (2 experts per rank, hot experts 0-3): ranks 0 and 1 hold two hot experts each,
//    1/4 of the pairs, twice the mean 1/8 (imbalance (max - mean) / mean = 1);
//  - EPLB without redundancy (2 slots per rank): replicas are packed heaviest first onto the
//    least-loaded rank, so the 4 hot ones go to ranks 0-3, the first 4 cold ones to ranks 4-7,
//    the next 4 to ranks 4-7 again (1/24 < 1/8) and the last 4 to ranks 0-3: ranks 0-3 get
//    1/8 + 1/24 = 1/6, ranks 4-7 get 2/24 = 1/12 (imbalance 1/3);
//  - EPLB with 8 redundant slots (3 per rank): each extra slot goes to the expert with the most
//    load per replica: the hot experts get a second replica (1/16 each), then a third (1/24),
//    so all 24 replicas carry 1/24 and every rank 3/24 = 1/8 (imbalance 0).
// The hot experts differ per MoE layer (hot-set permutes them per layer), but the EPLB figures do
// not depend on which experts are hot, so they hold for the pairs summed over a whole run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "sim/placement.h"
#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

std::vector<double> hot_set_load() {
  std::vector<double> p(16, 0.5 / 12);
  for (int e = 0; e < 4; ++e) p[static_cast<std::size_t>(e)] = 0.5 / 4;
  return p;
}

// Each rank's expected share of the pairs under a placement (a pair splits evenly over replicas).
std::vector<double> rank_shares(const ExpertPlacement& pl, const std::vector<double>& p) {
  std::vector<double> rank(static_cast<std::size_t>(pl.ranks()), 0.0);
  for (int s = 0; s < pl.slots(); ++s) {
    const int e = pl.expert_of_slot(s);
    rank[static_cast<std::size_t>(pl.rank_of_slot(s))] +=
        p[static_cast<std::size_t>(e)] / static_cast<double>(pl.replicas(e).size());
  }
  return rank;
}

PlacementShape ep8(int redundant) {
  PlacementShape s;
  s.experts = 16;
  s.ep = 8;
  s.redundant = redundant;
  return s;
}

TEST(EplbMagnitude, PlacementSharesAsDerivedByHand) {
  const auto p = hot_set_load();
  PlacementConfig contiguous, eplb0, eplb8;
  eplb0.policy = eplb8.policy = PlacementPolicy::kEplb;
  eplb8.redundant = 8;
  const auto c = rank_shares(place_layer(contiguous, ep8(0), p), p);
  EXPECT_NEAR(c[0], 0.25, 1e-12);
  EXPECT_NEAR(c[1], 0.25, 1e-12);
  for (int r = 2; r < 8; ++r) EXPECT_NEAR(c[static_cast<std::size_t>(r)], 1.0 / 12, 1e-12) << r;
  const auto e0 = rank_shares(place_layer(eplb0, ep8(0), p), p);
  for (int r = 0; r < 8; ++r) EXPECT_NEAR(e0[static_cast<std::size_t>(r)], r < 4 ? 1.0 / 6 : 1.0 / 12, 1e-12) << r;
  const auto e8 = rank_shares(place_layer(eplb8, ep8(8), p), p);
  for (int r = 0; r < 8; ++r) EXPECT_NEAR(e8[static_cast<std::size_t>(r)], 1.0 / 8, 1e-12) << r;
}

SimulationConfig hot_set(const char* policy, int redundant, double rebalance_s = 0) {
  auto c = testing::tiny_config(160);
  c.routing.model = workloads::RoutingModelKind::kHotSet;
  c.routing.hot_experts = 4;
  c.routing.hot_fraction = 0.5;
  c.deployment.colocated.placement.policy = placement_policy(policy);
  c.deployment.colocated.placement.redundant = redundant;
  c.deployment.colocated.placement.rebalance_interval_s = rebalance_s;
  c.workload.arrivals.rate_per_s = 800;
  return c;
}

// Each rank's share of the pairs received over the whole run (all MoE layers and steps).
std::vector<double> observed_shares(const SimulationResult& r) {
  const RankLoadSeries& s = r.pools[0].load.rank_pairs;
  std::vector<double> share(static_cast<std::size_t>(s.ranks()), 0.0);
  for (int b = 0; b < s.buckets(); ++b)
    for (int k = 0; k < s.ranks(); ++k) share[static_cast<std::size_t>(k)] += static_cast<double>(s.at(b, k));
  const double total = std::accumulate(share.begin(), share.end(), 0.0);
  for (double& x : share) x /= total;
  std::printf("  pairs %.0f, rank shares:", total);
  for (const double x : share) std::printf(" %.4f", x);
  std::printf("\n");
  return share;
}

// 160 requests x 320 tokens x 3 MoE layers x top-2 ~ 3e5 pairs: a rank's share of 1/8 has sd
// sqrt((1/8)(7/8) / 3e5) = 6e-4, 0.5 % of it; pairs of one token land together (top-2), which
// at most doubles the variance. The bound, 4 % of the share, is over 5 sd of that and a sixth
// of the smallest gap between the derived figures (1/8 against 1/6 or 1/12).
constexpr double kRelative = 0.04;

TEST(EplbMagnitude, RunsReceiveTheDerivedShares) {
  const auto none = observed_shares(simulate(hot_set("eplb", 0)));
  for (int r = 0; r < 8; ++r) {
    const double want = r < 4 ? 1.0 / 6 : 1.0 / 12;
    EXPECT_NEAR(none[static_cast<std::size_t>(r)], want, kRelative * want) << "EPLB without redundancy, rank " << r;
  }
  const auto eight = observed_shares(simulate(hot_set("eplb", 8)));
  for (int r = 0; r < 8; ++r)
    EXPECT_NEAR(eight[static_cast<std::size_t>(r)], 1.0 / 8, kRelative / 8) << "EPLB with 8 redundant, rank " << r;
}

// Rebalancing every 10 ms from the load observed since the last one: the observed load is the
// hot-set's plus sampling noise of a few per cent, well below the gaps that decide the replicas
// (a hot expert's 1/16 per replica against a cold one's 1/24), so each re-placement is again 24
// replicas of about 1/24 and every rank keeps 1/8 of the pairs. Each rebalance blocks the
// instance while the rank with the most new experts fetches them over its NIC: tiny-moe's expert
// is 3 x 256 x 128 bf16 weights = 196,608 bytes, at 400 Gb/s x 0.88 (the fitted NIC efficiency)
// = 44 GB/s that is 4.4684 us per expert, so the migration time is a whole number of those (each
// rebalance rounded to the nanosecond), at most 3 slots x 3 MoE layers = 9 per rebalance.
TEST(EplbMagnitude, RebalancingKeepsTheBalanceAndPaysWholeExperts) {
  const double interval = 0.01;
  const SimulationResult r = simulate(hot_set("eplb", 8, interval));
  ASSERT_EQ(r.summary.completed, 160);
  const auto& pool = r.pools[0];
  // One rebalance per interval of the run (a step that ends past the due time does it).
  EXPECT_GE(pool.rebalances, static_cast<std::int64_t>(0.8 * r.summary.makespan_s / interval));
  EXPECT_LE(pool.rebalances, static_cast<std::int64_t>(r.summary.makespan_s / interval) + 1);
  const auto shares = observed_shares(r);
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(shares[static_cast<std::size_t>(k)], 1.0 / 8, kRelative / 8) << "rank " << k;
  const double per_expert_s = 3.0 * 256 * 128 * 2 / (50e9 * 0.88);
  const double experts = pool.migration_s / per_expert_s;
  std::printf("  %lld rebalances over %.3f s, migration %.3f us = %.6f experts\n",
              static_cast<long long>(pool.rebalances), r.summary.makespan_s, pool.migration_s * 1e6, experts);
  EXPECT_GT(experts, 0.5);
  EXPECT_LE(experts, 9.0 * static_cast<double>(pool.rebalances) + 1e-6);
  EXPECT_NEAR(experts, std::round(experts), static_cast<double>(pool.rebalances) * 0.5e-9 / per_expert_s + 1e-9)
      << pool.migration_s << " s of migration is not a whole number of " << per_expert_s << " s expert fetches";
}

}  // namespace
}  // namespace moesim::sim
