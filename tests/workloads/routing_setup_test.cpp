// RoutingSetup keeps a layer's setup exactly while its popularity and targets stay, and rebuilds
// it when either changes; a routing sampler's draws do not depend on what its setup kept.
#include "workloads/routing_setup.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

constexpr int kExperts = 16, kRanks = 4, kSetupTopK = 2;

// Contiguous experts, one replica of expert 0 on the last rank, two nodes.
RoutingTargets replicated(std::uint64_t revision = 0) {
  RoutingTargets t = RoutingTargets::contiguous(kExperts, kRanks);
  t.slot_rank.push_back(kRanks - 1);
  t.slot_expert.push_back(0);
  t.slot_share[0] = 0.5;
  t.slot_share.push_back(0.5);
  t.rank_node = {0, 0, 1, 1};
  t.revision = revision;
  t.validate();
  return t;
}

std::unique_ptr<RoutingModel> model_named(const std::string& name, std::int64_t drift_interval = 1) {
  RoutingConfig rc;
  rc.model = routing_model_kind(name);
  rc.drift_interval_steps = drift_interval;
  rc.base =
      workloads::RoutingModelKind::kZipf;  // group-limited: 4 groups of 4 experts, each token's pairs in at most 2
  if (name == "group-limited") rc.group_limit = {true, 4, 2};
  return make_routing_model(rc, RoutingShape{kExperts, 3, kSetupTopK, 1, 1}, 5);
}

void expect_same(const LayerRoutingSetup& a, const LayerRoutingSetup& b) {
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.q, b.q);
  EXPECT_EQ(a.vw, b.vw);
  EXPECT_EQ(a.vq, b.vq);
  EXPECT_EQ(a.node_q, b.node_q);
  EXPECT_EQ(a.node_ranks, b.node_ranks);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.pattern, b.pattern);
  EXPECT_EQ(a.group_first, b.group_first);
  EXPECT_EQ(a.rank_cond, b.rank_cond);
  EXPECT_EQ(a.slot_cond, b.slot_cond);
}

TEST(RoutingSetup, NamedTargetsAreRebuiltOnANewRevisionOnly) {
  const auto model = model_named("zipf");
  RoutingSetup setup(*model, kExperts);
  setup.load(0, 0);
  setup.layer(0, replicated(1));
  EXPECT_EQ(setup.builds(), 1);
  setup.load(0, 1);
  setup.layer(0, replicated(1));
  EXPECT_EQ(setup.builds(), 1);  // same revision, same (step-invariant) popularity: kept
  setup.load(0, 2);
  const LayerRoutingSetup& s = setup.layer(0, replicated(2));
  EXPECT_EQ(setup.builds(), 2);
  RoutingSetup fresh(*model, kExperts);
  fresh.load(0, 2);
  expect_same(s, fresh.layer(0, replicated(2)));
}

TEST(RoutingSetup, UnnamedTargetsAreComparedInFull) {
  const auto model = model_named("zipf");
  RoutingSetup setup(*model, kExperts);
  setup.load(0, 0);
  setup.layer(0, replicated());
  setup.layer(0, replicated());
  EXPECT_EQ(setup.builds(), 1);
  RoutingTargets moved = replicated();
  moved.slot_share[0] = 0.25, moved.slot_share[static_cast<std::size_t>(kExperts)] = 0.75;
  const LayerRoutingSetup& s = setup.layer(0, moved);
  EXPECT_EQ(setup.builds(), 2);
  RoutingSetup fresh(*model, kExperts);
  fresh.load(0, 0);
  expect_same(s, fresh.layer(0, moved));
  setup.layer(0, moved);
  EXPECT_EQ(setup.builds(), 2);
  setup.layer(1, moved);  // each layer has its own setup
  EXPECT_EQ(setup.builds(), 3);
}

TEST(RoutingSetup, APopularityThatMovedRebuildsTheLayer) {
  const auto model = model_named("dirichlet-drift", 2);  // the popularity moves every other step
  RoutingSetup setup(*model, kExperts);
  const RoutingTargets t = replicated(1);
  setup.load(0, 0);
  setup.layer(0, t);
  setup.load(0, 1);
  setup.layer(0, t);
  EXPECT_EQ(setup.builds(), 1);  // the same popularity, compared in full: kept
  setup.load(0, 2);
  const LayerRoutingSetup& s = setup.layer(0, t);
  EXPECT_EQ(setup.builds(), 2);
  RoutingSetup fresh(*model, kExperts);
  fresh.load(0, 2);
  expect_same(s, fresh.layer(0, t));
}

TEST(RoutingSetup, MassesFollowTheClassShares) {
  const auto model = model_named("zipf");
  RoutingSetup setup(*model, kExperts);
  EXPECT_THROW(setup.masses(0, std::vector<double>{1.0}), WorkloadError);
  setup.load(0, 0);
  const LayerRoutingSetup& s = setup.layer(0, replicated());
  const ModelMasses& one = setup.masses(0, std::vector<double>{1.0});
  double total = 0;
  for (const double m : one.rank_mass) total += m;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(one.node_mass[0], one.rank_mass[0] + one.rank_mass[1], 1e-15);
  double q = 0;
  for (int d = 0; d < kRanks; ++d) q += s.q[static_cast<std::size_t>(d)];
  for (int d = 0; d < kRanks; ++d)  // one class: its rank weights, normalised
    EXPECT_NEAR(one.rank_mass[static_cast<std::size_t>(d)], s.q[static_cast<std::size_t>(d)] / q, 1e-15);
  const ModelMasses& none = setup.masses(0, std::vector<double>{0.0});  // no tokens: no mass
  for (const double m : none.rank_mass) EXPECT_EQ(m, 0.0);
}

// Two samplers over the same model, one kept across every layer, step and target change, the
// other made anew for each draw (sharing nothing): the same random state gives the same draws.
TEST(RoutingSetup, AKeptSamplerDrawsAsOneThatSharesNothing) {
  RoutingTargets split = replicated();
  split.classes = 2;
  split.source_class = {0, 0, 1, 1};
  std::vector<double> second = split.slot_share;
  second[0] = 0.0, second.back() = 1.0;
  split.slot_share.insert(split.slot_share.end(), second.begin(), second.end());
  split.validate();
  const std::vector<RoutingTargets> targets = {replicated(), replicated(7), split, replicated()};
  const std::vector<std::int64_t> tokens{9, 0, 14, 5};
  for (const char* name : {"zipf", "dirichlet-drift", "group-limited"}) {
    const auto model = model_named(name);
    RoutingSampler kept(*model, kExperts, kSetupTopK);
    Rng rng = make_stream(2, "kept");
    std::int64_t step = 0;
    for (const RoutingTargets& t : targets)
      for (int again = 0; again < 2; ++again, ++step)
        for (int layer = 0; layer < 3; ++layer) {
          const std::string what = std::string(name) + ", step " + std::to_string(step);
          for (const bool margins : {false, true}) {
            RoutingSampler fresh(*model, kExperts, kSetupTopK);
            Rng rng_fresh = rng;
            if (margins) {
              RoutingMargins a, b;
              kept.draw_margins(layer, step, tokens, t, rng, a, layer == 1);
              fresh.draw_margins(layer, step, tokens, t, rng_fresh, b, layer == 1);
              EXPECT_EQ(a.slot_counts, b.slot_counts) << what;
              EXPECT_EQ(a.received_remote, b.received_remote) << what;
              EXPECT_EQ(a.received_intra, b.received_intra) << what;
              EXPECT_EQ(a.node_pairs, b.node_pairs) << what;
              EXPECT_EQ(a.rank_mass, b.rank_mass) << what;
            } else {
              LayerCounts a, b;
              kept.draw(layer, step, tokens, t, rng, a);
              fresh.draw(layer, step, tokens, t, rng_fresh, b);
              EXPECT_EQ(a.pairs, b.pairs) << what;
              EXPECT_EQ(a.slot_counts, b.slot_counts) << what;
            }
            EXPECT_EQ(rng(), rng_fresh()) << what;
          }
        }
  }
}

}  // namespace
}  // namespace moesim::workloads
