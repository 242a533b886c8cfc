// LayerRouting::shared_law (sim/layer_routing.h): which MoE layers draw from one law, so that
// their kept draws may share a pool (routing.share_draws, sim/route_memo.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/sim/layer_routing_fixture.h"

namespace moesim::sim {
namespace {

struct LawFixture : test::LayerRoutingFixture {
  LawFixture(workloads::RoutingModelKind kind, PlacementPolicy policy, int redundant = 0)
      : LayerRoutingFixture({.routing = kind, .placement = policy, .redundant = redundant}) {}
  // Every MoE layer's shared law at `step`, in layer order.
  std::vector<LayerRouting::SharedLaw> laws(std::int64_t step) {
    std::vector<LayerRouting::SharedLaw> out;
    for (int l = 0; l < model.num_moe_layers(); ++l) out.push_back(*routing->shared_law(l, step));
    return out;
  }
};

TEST(SharedLaw, UniformRoutingOnOnePlacementIsOneLawForEveryLayer) {
  LawFixture f(workloads::RoutingModelKind::kUniform, PlacementPolicy::kContiguous);
  const auto first = f.laws(0);
  ASSERT_EQ(first.size(), 58u);  // DeepSeek-V3: 61 layers, the first 3 dense
  for (std::size_t l = 0; l < first.size(); ++l) {
    EXPECT_EQ(first[l].leader, 0) << "layer " << l;
    EXPECT_EQ(first[l].version, first[0].version) << "layer " << l;
    EXPECT_EQ(first[l].layers, static_cast<int>(l) + 1) << "the layers asked so far";
  }
  // Later steps: the same law, read by all 58 layers.
  for (const auto& law : f.laws(5)) {
    EXPECT_EQ(law.version, first[0].version);
    EXPECT_EQ(law.layers, 58);
  }
}

TEST(SharedLaw, LayersOfTheirOwnPopularityKeepTheirOwnLaw) {
  // Zipf ranks the experts of each layer in its own order: 58 laws.
  LawFixture f(workloads::RoutingModelKind::kZipf, PlacementPolicy::kContiguous);
  const auto laws = f.laws(0);
  for (std::size_t l = 0; l < laws.size(); ++l) {
    EXPECT_EQ(laws[l].leader, static_cast<int>(l));
    EXPECT_EQ(laws[l].layers, 1);
    for (std::size_t m = 0; m < l; ++m) EXPECT_NE(laws[l].version, laws[m].version);
  }
}

TEST(SharedLaw, EplbOfPermutedPopularitiesIsOneLawUpToTheSlotsOfEachRank) {
  // Zipf permutes one popularity vector per layer; EPLB places the experts by their loads alone,
  // so every rank holds the same popularities in every layer, on other slots: one law for all 58.
  LawFixture f(workloads::RoutingModelKind::kZipf, PlacementPolicy::kEplb);
  const auto first = f.laws(0);
  for (const auto& law : first) {
    EXPECT_EQ(law.leader, 0);
    EXPECT_EQ(law.version, first.front().version);
  }
  for (const auto& law : f.laws(1)) EXPECT_EQ(law.layers, 58);
  // A draw of layer 0 kept in canonical order reads back as its own expert counts, and as layer
  // 7's: each of layer 7's experts gets the count of layer 0's expert of the same popularity.
  const std::vector<std::int64_t> tokens(16, 64);
  workloads::Rng rng = workloads::make_stream(3, "shared-law");
  f.routing->draw(0, 0, tokens, rng);
  std::vector<std::int64_t> canonical;
  f.routing->canonical_slots(canonical);
  const auto experts = static_cast<std::size_t>(f.model.routed_experts);
  std::vector<std::int64_t> own(experts), seventh(experts);
  f.routing->canonical_expert_counts(0, canonical, own);
  const auto drawn = f.routing->expert_counts();
  EXPECT_EQ(own, std::vector<std::int64_t>(drawn.begin(), drawn.end()));
  f.routing->canonical_expert_counts(7, canonical, seventh);
  std::vector<double> p0(experts), p7(experts);
  f.routing_model->expert_distribution(0, 0, p0);
  f.routing_model->expert_distribution(7, 0, p7);
  ASSERT_NE(p0, p7) << "the layers must rank their experts differently";
  std::int64_t total = 0;
  for (std::size_t e = 0; e < experts; ++e) {
    const auto same = static_cast<std::size_t>(std::find(p0.begin(), p0.end(), p7[e]) - p0.begin());
    ASSERT_LT(same, experts);
    EXPECT_EQ(seventh[e], own[same]) << "expert " << e;
    total += seventh[e];
  }
  EXPECT_EQ(total, 16 * 64 * f.model.top_k);
}

TEST(SharedLaw, APlacementOfItsOwnIsALawOfItsOwn) {
  // Under uniform routing EPLB places every layer alike, so the layers still share; placing one
  // layer again (a rebalance from observed loads that differ by layer, which replicates its hot
  // expert more) splits them. (Without redundant experts a placement only moves experts between
  // slots, which under uniform routing leaves the law as it was.)
  LawFixture f(workloads::RoutingModelKind::kUniform, PlacementPolicy::kEplb, 16);
  const auto before = f.laws(0);
  EXPECT_EQ(before.back().layers, 58);
  const std::uint64_t shared = before.front().version;
  // Skewed loads on layer 1 alone, then a rebalance: layer 1's targets change, the others' not.
  std::vector<std::int64_t> counts(static_cast<std::size_t>(f.model.routed_experts), 10);
  counts[0] = 100000;
  f.routing->observe(1, counts);
  f.routing->rebalance();
  const auto after = f.laws(1);
  EXPECT_NE(after[1].version, shared);
  EXPECT_EQ(after[1].layers, 1);
  EXPECT_EQ(after[1].leader, 1);
  for (std::size_t l = 2; l < after.size(); ++l) EXPECT_EQ(after[l].version, after[0].version) << "layer " << l;
  EXPECT_NE(after[0].version, after[1].version);
  EXPECT_EQ(after.back().layers, 57);
}

// Replayed shared draws are summed in canonical order and read back in expert order by the form
// each was replayed under (LayerRouting::add_replayed): the totals are those of booking every
// replay's own expert counts, across a change of the layer's form.
TEST(SharedLaw, ReplayedCountsReadBackByTheFormTheyWereReplayedUnder) {
  LawFixture f(workloads::RoutingModelKind::kUniform, PlacementPolicy::kEplb, 16);
  f.laws(0);
  const std::vector<std::int64_t> tokens(16, 64);
  workloads::Rng rng = workloads::make_stream(5, "replayed");
  const auto experts = static_cast<std::size_t>(f.model.routed_experts);
  // The expert counts a kept draw of layer 1, under its form now, books.
  auto replay = [&](std::int64_t step, std::vector<std::int64_t>& expected) {
    f.routing->draw(1, step, tokens, rng);
    std::vector<std::int64_t> canonical, counts(experts);
    f.routing->canonical_slots(canonical);
    f.routing->canonical_expert_counts(1, canonical, counts);
    for (std::size_t e = 0; e < experts; ++e) expected[e] += counts[e];
    f.routing->add_replayed(1, canonical);
  };
  std::vector<std::int64_t> expected(experts, 0);
  replay(0, expected);
  replay(0, expected);
  // Layer 1 placed again: its form changes at its next shared_law.
  std::vector<std::int64_t> skewed(experts, 10);
  skewed[0] = 100000;
  f.routing->observe(1, skewed);
  f.routing->rebalance();
  std::vector<std::int64_t> under_new(experts, 0);
  f.laws(1);
  replay(1, under_new);
  ASSERT_NE(under_new, std::vector<std::int64_t>(experts, 0));
  for (std::size_t e = 0; e < experts; ++e) expected[e] += under_new[e];
  std::vector<std::int64_t> booked(experts, 0);
  f.routing->take_replayed(1, booked);
  EXPECT_EQ(booked, expected);
  // Taken once: nothing left, and no other layer had any.
  std::vector<std::int64_t> again(experts, 0);
  f.routing->take_replayed(1, again);
  f.routing->take_replayed(2, again);
  EXPECT_EQ(again, std::vector<std::int64_t>(experts, 0));
}

}  // namespace
}  // namespace moesim::sim
