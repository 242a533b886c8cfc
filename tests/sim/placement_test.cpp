#include "sim/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

#include "sim/deployment_error.h"
#include "sim/placement_eplb.h"
#include "sim/placement_stats.h"
#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"
#include "workloads/workload_error.h"

namespace moesim::sim {
namespace {

PlacementShape shape(int experts, int ep, int redundant, int per_node = 8, int groups = 1) {
  PlacementShape s;
  s.experts = experts;
  s.ep = ep;
  s.redundant = redundant;
  s.devices_per_node = per_node;
  s.expert_groups = groups;
  return s;
}

PlacementConfig policy(const char* name, int redundant = 0) {
  PlacementConfig c;
  c.policy = placement_policy(name);
  c.redundant = redundant;
  return c;
}

std::vector<double> zipf_load(int experts, double s, std::uint64_t seed) {
  workloads::RoutingConfig rc;
  rc.model = workloads::RoutingModelKind::kZipf;
  rc.s = s;
  workloads::RoutingShape rs;
  rs.experts = experts;
  rs.top_k = 8;
  std::vector<double> p(static_cast<std::size_t>(experts));
  workloads::make_routing_model(rc, rs, seed)->expert_distribution(0, 0, p);
  return p;
}

// Expected (noise-free) rank imbalance of a placement under expert probabilities p, even split.
double expected_rank_imbalance(const ExpertPlacement& pl, const std::vector<double>& p) {
  std::vector<double> rank(static_cast<std::size_t>(pl.ranks()), 0.0);
  for (int s = 0; s < pl.slots(); ++s) {
    const int e = pl.expert_of_slot(s);
    rank[static_cast<std::size_t>(pl.rank_of_slot(s))] +=
        p[static_cast<std::size_t>(e)] / static_cast<double>(pl.replicas(e).size());
  }
  const double mean = std::accumulate(rank.begin(), rank.end(), 0.0) / static_cast<double>(rank.size());
  return (*std::max_element(rank.begin(), rank.end()) - mean) / mean;
}

TEST(Placement, ContiguousAndStripedLayouts) {
  const auto s = shape(16, 4, 0);
  const std::vector<double> load(16, 1.0);
  const auto c = place_layer(policy("contiguous"), s, load);
  const auto st = place_layer(policy("striped"), s, load);
  for (int e = 0; e < 16; ++e) {
    ASSERT_EQ(c.replicas(e).size(), 1u);
    EXPECT_EQ(c.rank_of_slot(c.replicas(e)[0]), e / 4);
    EXPECT_EQ(st.rank_of_slot(st.replicas(e)[0]), e % 4);
  }
  EXPECT_THROW(place_layer(policy("contiguous", 4), shape(16, 4, 4), load), DeploymentError);
  EXPECT_THROW(place_layer(policy("eplb", 3), shape(16, 4, 3), load), DeploymentError);  // 19 slots / 4
  EXPECT_THROW(placement_policy("round-robin"), workloads::WorkloadError);
}

TEST(Eplb, ReplicatesTheHottestExperts) {
  const std::vector<double> w{10, 1, 1, 4};
  // Extra slots go to the highest load per replica: 10 → 5 (vs 4) → 3.3 < 4 → expert 3 → 10/3.
  EXPECT_EQ(eplb::replicate(w, 7), (std::vector<int>{3, 1, 1, 2}));
  EXPECT_EQ(eplb::replicate(w, 8), (std::vector<int>{4, 1, 1, 2}));
  const auto pack = eplb::balanced_packing(std::vector<double>{5, 4, 3, 2, 1, 1}, 2, 3);
  double a = 0, b = 0;
  for (std::size_t i = 0; i < pack.size(); ++i) (pack[i] == 0 ? a : b) += std::vector<double>{5, 4, 3, 2, 1, 1}[i];
  EXPECT_EQ(std::count(pack.begin(), pack.end(), 0), 3);
  EXPECT_EQ(a, 8);
  EXPECT_EQ(b, 8);
}

TEST(Eplb, RedundantSlotsLowerRankImbalanceOnZipfRouting) {
  const int experts = 256, ep = 32, redundant = 32;
  const auto p = zipf_load(experts, 1.0, 4);
  const auto contiguous = place_layer(policy("contiguous"), shape(experts, ep, 0), p);
  const auto eplb0 = place_layer(policy("eplb"), shape(experts, ep, 0), p);
  const auto eplb = place_layer(policy("eplb", redundant), shape(experts, ep, redundant), p);
  const double ic = expected_rank_imbalance(contiguous, p);
  const double i0 = expected_rank_imbalance(eplb0, p);
  const double ir = expected_rank_imbalance(eplb, p);
  EXPECT_GT(ic, 1.0);  // the hottest expert alone takes 1/8 (the top-8 cap) of all load on one of 32 ranks
  EXPECT_LT(i0, ic);
  EXPECT_LT(ir, 0.5 * i0);
  EXPECT_LT(ir, 0.1);
  // Every expert keeps at least one slot, replicas go to the hottest.
  const auto hottest = static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
  EXPECT_GT(eplb.replicas(hottest).size(), 1u);

  // The same holds for sampled counts (statistics from placement_stats).
  workloads::RoutingConfig rc;
  rc.model = workloads::RoutingModelKind::kZipf;
  rc.s = 1.0;
  workloads::RoutingShape rs{experts, 1, 8, 1, 1};
  const auto model = workloads::make_routing_model(rc, rs, 4);
  workloads::RoutingSampler sampler(*model, experts, 8);
  workloads::Rng rng = workloads::make_stream(1, "eplb");
  workloads::LayerCounts counts;
  const std::vector<std::int64_t> tokens(ep, 256);
  sampler.draw(0, 0, tokens, contiguous.routing_targets(ReplicaSplit::kEven), rng, counts);
  const auto sc = layer_imbalance(contiguous, counts.slot_counts);
  sampler.draw(0, 0, tokens, eplb.routing_targets(ReplicaSplit::kEven), rng, counts);
  const auto se = layer_imbalance(eplb, counts.slot_counts);
  EXPECT_EQ(sc.pairs, 32 * 256 * 8);
  EXPECT_EQ(se.pairs, 32 * 256 * 8);
  EXPECT_LT(se.rank_imbalance, 0.5 * sc.rank_imbalance);
  EXPECT_EQ(sc.hottest_expert, hottest);
  EXPECT_NEAR(sc.hottest_expert_share, p[static_cast<std::size_t>(hottest)], 0.01);
}

TEST(Eplb, HierarchicalKeepsEachGroupOnOneNode) {
  const int experts = 256, ep = 32, redundant = 32;
  const auto p = zipf_load(experts, 0.8, 9);
  const auto pl = place_layer(policy("eplb-hierarchical", redundant), shape(experts, ep, redundant, 8, 8), p);
  for (int g = 0; g < 8; ++g) {
    std::set<int> nodes;
    for (int e = g * 32; e < (g + 1) * 32; ++e)
      for (int s : pl.replicas(e)) nodes.insert(pl.node_of_rank(pl.rank_of_slot(s)));
    EXPECT_EQ(nodes.size(), 1u) << "group " << g;
  }
  EXPECT_LT(expected_rank_imbalance(pl, p),
            expected_rank_imbalance(place_layer(policy("contiguous"), shape(experts, ep, 0), p), p));
  EXPECT_THROW(place_layer(policy("eplb-hierarchical", 0), shape(256, 32, 0, 8, 3), p), DeploymentError);
}

TEST(ReplicaSplit, LocalPrefersTheSourcesNode) {
  // 4 experts on 4 ranks (2 nodes of 2) with 4 redundant slots: expert 0 replicated on both nodes.
  const std::vector<int> slots{0, 1, 2, 0, 3, 0, 1, 2};  // ranks: {0,1}, {2,0}, {3,0}, {1,2}
  const ExpertPlacement pl(shape(4, 4, 4, 2), slots);
  const auto even = pl.routing_targets(ReplicaSplit::kEven);
  even.validate();
  EXPECT_EQ(even.classes, 1);
  EXPECT_DOUBLE_EQ(even.slot_share[0], 1.0 / 3);
  const auto local = pl.routing_targets(ReplicaSplit::kLocal);
  local.validate();
  ASSERT_EQ(local.classes, 2);
  // Node 0 (ranks 0, 1) holds expert 0 in slots 0 and 3; node 1 in slot 5.
  EXPECT_DOUBLE_EQ(local.slot_share[0], 0.5);
  EXPECT_DOUBLE_EQ(local.slot_share[3], 0.5);
  EXPECT_DOUBLE_EQ(local.slot_share[5], 0.0);
  EXPECT_DOUBLE_EQ(local.slot_share[8 + 5], 1.0);
  EXPECT_THROW(replica_split("nearest"), workloads::WorkloadError);
}

TEST(Rebalance, CountsExpertsEachRankMustFetch) {
  const auto s = shape(16, 4, 4);
  const auto a = place_layer(policy("eplb", 4), s, zipf_load(16, 1.0, 1));
  EXPECT_EQ(moved_experts(a, a), std::vector<int>(4, 0));
  const auto b = place_layer(policy("eplb", 4), s, zipf_load(16, 1.0, 2));
  const auto moved = moved_experts(a, b);
  int total = 0;
  for (int r = 0; r < 4; ++r) {
    std::multiset<int> before, after;
    for (int i = 0; i < 5; ++i) {
      before.insert(a.expert_of_slot(r * 5 + i));
      after.insert(b.expert_of_slot(r * 5 + i));
    }
    int kept = 0;
    for (int e : std::set<int>(after.begin(), after.end()))
      kept += static_cast<int>(std::min(before.count(e), after.count(e)));
    EXPECT_EQ(moved[static_cast<std::size_t>(r)], 5 - kept);
    total += moved[static_cast<std::size_t>(r)];
  }
  EXPECT_GT(total, 0);
  const std::vector<std::vector<double>> loads{zipf_load(16, 1.0, 2), zipf_load(16, 1.0, 1)};
  const auto rb = rebalance({a, a}, policy("eplb", 4), s, loads);
  EXPECT_EQ(rb.moved_total, total);
  EXPECT_EQ(rb.placement[1].slot_experts(), a.slot_experts());
}

TEST(ImbalanceStats, CapacityDropsAndSpread) {
  const auto pl = place_layer(policy("contiguous"), shape(4, 2, 0), std::vector<double>(4, 1.0));
  const std::vector<std::int64_t> counts{70, 10, 10, 10};
  const auto st = layer_imbalance(pl, counts, 1.0);
  EXPECT_EQ(st.pairs, 100);
  EXPECT_NEAR(st.rank_imbalance, (80.0 - 50.0) / 50.0, 1e-12);
  EXPECT_NEAR(st.slot_imbalance, (70.0 - 25.0) / 25.0, 1e-12);
  EXPECT_NEAR(st.rank_cv, 30.0 / 50.0, 1e-12);
  EXPECT_EQ(st.hottest_expert, 0);
  EXPECT_EQ(st.hottest_rank, 0);
  EXPECT_EQ(st.capacity_per_slot, 25);
  EXPECT_EQ(st.dropped, 45);
  EXPECT_EQ(layer_imbalance(pl, counts).dropped, 0);
}

}  // namespace
}  // namespace moesim::sim
