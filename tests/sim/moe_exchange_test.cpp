// MoeExchange (sim/moe_exchange.h) and LayerClock (sim/layer_breakdown.h): the token exchange of an
// MoE layer and the per-layer wall and exposed-communication bookkeeping, on their own.
#include "sim/moe_exchange.h"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"
#include "models/presets.h"
#include "sim/check.h"
#include "sim/layer_breakdown.h"
#include "sim/load_stats.h"
#include "sim/moe_comm.h"
#include "sim/stream_timeline.h"
#include "sim/tp_collective.h"
#include "tests/sim/layer_routing_fixture.h"
#include "workloads/routing_model.h"

namespace moesim::sim {
namespace {

struct ExchangeFixture : test::LayerRoutingFixture {
  explicit ExchangeFixture(const char* algorithm, int nodes = 2)
      : LayerRoutingFixture({.algorithm = algorithm, .nodes = nodes}),
        exchange(std::make_unique<MoeExchange>(model, *layout, cluster, routing->aggregated())) {}
  ExchangeTimes layer(std::int64_t tokens_per_rank) {
    const std::vector<std::int64_t> tokens(static_cast<std::size_t>(layout->ranks()), tokens_per_rank);
    workloads::Rng rng(7);
    routing->draw(0, 0, tokens, rng);
    return exchange->all_to_all(*routing);
  }

  std::unique_ptr<MoeExchange> exchange;
};

TEST(MoeExchange, MoreTokensTakeLongerAndTheCombineCarriesWiderRows) {
  ExchangeFixture f("direct");
  const ExchangeTimes small = f.layer(16), large = f.layer(256);
  EXPECT_GT(large.dispatch_ns, small.dispatch_ns);
  EXPECT_GT(large.combine_ns, small.combine_ns);
  EXPECT_GT(large.fabric_tokens, 10 * small.fabric_tokens);
  // DeepSeek-V3 dispatches FP8 rows and combines BF16 rows: the combine moves more bytes.
  ASSERT_LT(f.exchange->dispatch_bytes_per_token(), f.exchange->combine_bytes_per_token());
  EXPECT_GT(large.combine_ns, large.dispatch_ns);
  // Direct: one row per destination rank a token reaches; with k = 8 over 16 ranks a token
  // reaches at most min(k, ranks - 1 others + itself) ranks, so never more than k per token.
  EXPECT_LE(large.fabric_tokens, 256.0 * 16 * f.model.top_k);
}

TEST(MoeExchange, LowLatencySendsOneMessagePerPair) {
  ExchangeFixture direct("direct"), ll("low-latency");
  EXPECT_TRUE(ll.exchange->low_latency());
  EXPECT_FALSE(direct.exchange->low_latency());
  const ExchangeTimes d = direct.layer(128), l = ll.layer(128);
  // Per pair instead of per destination rank: at least as many rows on the fabric.
  EXPECT_GE(l.fabric_tokens, d.fabric_tokens);
}

TEST(MoeExchange, GatherScatterMovesTheWidestShareFromEveryRank) {
  ExchangeFixture f("allgather-reducescatter");
  ASSERT_TRUE(f.exchange->uses_gather_scatter());
  std::vector<std::int64_t> tokens(16, 10);
  tokens[3] = 30;  // the widest share pads every rank's
  const ExchangeTimes t = f.exchange->gather_scatter(tokens);
  const double gathered = 30.0 * 16;
  EXPECT_DOUBLE_EQ(t.fabric_tokens, gathered * 15);
  const auto& devices = f.layout->rank_devices();
  const auto& fidelity = *f.layout->config().comm.fidelity;
  EXPECT_DOUBLE_EQ(t.dispatch_ns, tp_collective_ns(f.cluster, devices, topology::CollectiveKind::kAllGather,
                                                   gathered * f.exchange->dispatch_bytes_per_token(), fidelity));
  EXPECT_DOUBLE_EQ(t.combine_ns, tp_collective_ns(f.cluster, devices, topology::CollectiveKind::kReduceScatter,
                                                  gathered * f.exchange->combine_bytes_per_token(), fidelity));
}

// Replays of a kept draw book its link loads once, times their number, when settled: the run's
// link loads are those of booking every replay as a fresh all-to-all of the same draw.
void expect_settled_replays_book_what_fresh_exchanges_do(const char* algorithm) {
  SCOPED_TRACE(algorithm);
  ExchangeFixture kept(algorithm), fresh(algorithm);
  const int links = kept.cluster.num_links();
  LoadStats kept_load(kept.model.num_moe_layers(), kept.model.routed_experts, 1, kept.layout->ranks(), links);
  LoadStats fresh_load = kept_load;
  kept.exchange->set_load_stats(&kept_load);
  fresh.exchange->set_load_stats(&fresh_load);
  const std::vector<std::int64_t> tokens(static_cast<std::size_t>(kept.layout->ranks()), 64);
  workloads::Rng rng(7);
  kept.routing->draw(0, 0, tokens, rng);
  ExchangeRecord record;
  kept.exchange->all_to_all(*kept.routing, &record);
  kept.exchange->book_step_links();
  for (int step = 1; step < 4; ++step) {
    kept.exchange->replay(record);
    kept.exchange->book_step_links();
  }
  EXPECT_EQ(record.unsettled_replays, 3);
  // The record cannot take another draw before its replays are booked.
  EXPECT_THROW(kept.exchange->all_to_all(*kept.routing, &record), InvariantError);
  kept.exchange->settle(record);
  EXPECT_EQ(record.unsettled_replays, 0);
  kept.exchange->settle(record);     // nothing left: books nothing
  kept.exchange->book_step_links();  // settled volumes are costed with a step's

  workloads::Rng same(7);
  fresh.routing->draw(0, 0, tokens, same);
  for (int step = 0; step < 4; ++step) {
    fresh.exchange->all_to_all(*fresh.routing);
    fresh.exchange->book_step_links();
  }
  double total = 0;
  for (std::size_t l = 0; l < fresh_load.link_bytes.size(); ++l) {
    total += fresh_load.link_bytes[l];
    EXPECT_NEAR(kept_load.link_bytes[l], fresh_load.link_bytes[l], 1e-12 * fresh_load.link_bytes[l]) << "link " << l;
  }
  EXPECT_GT(total, 0);
}

TEST(MoeExchange, SettledReplaysBookWhatFreshExchangesOfTheDrawBook) {
  for (const char* algorithm : {"direct", "hierarchical", "low-latency"})
    expect_settled_replays_book_what_fresh_exchanges_do(algorithm);
}

TEST(MoeExchange, ReplaysWithoutLoadStatisticsLeaveNothingToSettle) {
  ExchangeFixture f("direct");
  f.layer(64);
  ExchangeRecord record;
  f.exchange->replay(record);
  EXPECT_EQ(record.unsettled_replays, 0);
}

TEST(LayerClock, WallRunsFromTheLayerBeforeAndExposedIsWallLessTheBusiestRank) {
  StreamTimeline timeline(2);
  LayerBreakdown b;
  b.size_for(2);
  LayerClock clock;
  clock.begin(timeline, 2);
  std::vector<double> ready{0, 0};
  const std::vector<double> work{10, 4};
  timeline.compute(ready, work, ready);
  const double end0 = timeline.collective(ready, 6);  // both ranks wait for rank 0, then 6 of transfer
  ASSERT_DOUBLE_EQ(end0, 16);
  clock.end(0, end0, timeline, b);
  EXPECT_DOUBLE_EQ(b.wall_ns[0], 16);
  EXPECT_DOUBLE_EQ(b.exposed_comm_ns[0], 6);  // rank 0 computed 10 of the 16
  // The second layer starts where the first ended and counts only its own compute.
  ready.assign(2, end0);
  timeline.compute(ready, std::vector<double>{3, 3}, ready);
  clock.end(1, ready[0], timeline, b);
  EXPECT_DOUBLE_EQ(b.wall_ns[1], 3);
  EXPECT_DOUBLE_EQ(b.exposed_comm_ns[1], 0);
}

TEST(LayerBreakdown, SizeForKeepsWhatItHasAccumulated) {
  LayerBreakdown b;
  b.size_for(3);
  ASSERT_EQ(b.layer_ns.size(), 3u);
  b.wall_ns[1] = 5;
  b.size_for(3);
  EXPECT_EQ(b.wall_ns[1], 5);
  b.size_for(4);
  EXPECT_EQ(b.wall_ns.size(), 4u);
  EXPECT_EQ(b.exposed_comm_ns.size(), 4u);
  EXPECT_EQ(b.wall_ns[1], 0);
}

TEST(LayerBreakdown, AddSumsEveryField) {
  // Each instance sums its own steps; the pool adds them up (sim/simulation.cpp).
  LayerBreakdown one;
  one.size_for(2);
  double v = 1;
  for (auto& layer : one.layer_ns)
    for (double& p : layer) p = v++;
  one.wall_ns = {v, v + 1};
  one.exposed_comm_ns = {v + 2, v + 3};
  double LayerBreakdown::*const doubles[] = {
      &LayerBreakdown::dispatch_bytes,        &LayerBreakdown::combine_bytes,      &LayerBreakdown::lm_head_ns,
      &LayerBreakdown::pipeline_send_ns,      &LayerBreakdown::draft_ns,           &LayerBreakdown::runtime_ns,
      &LayerBreakdown::afd_attention_busy_ns, &LayerBreakdown::afd_expert_busy_ns, &LayerBreakdown::afd_span_ns};
  for (const auto m : doubles) one.*m = v++;
  std::int64_t LayerBreakdown::*const counts[] = {
      &LayerBreakdown::tokens_routed, &LayerBreakdown::tokens_combined,    &LayerBreakdown::graph_steps,
      &LayerBreakdown::afd_rows_sent, &LayerBreakdown::afd_rows_processed, &LayerBreakdown::afd_rows_returned};
  std::int64_t n = 1;
  for (const auto m : counts) one.*m = n++;
  LayerBreakdown sum;
  sum.add(LayerBreakdown{});  // an instance that never stepped adds nothing
  sum.add(one);
  sum.add(one);
  ASSERT_EQ(sum.layer_ns.size(), 2u);
  for (std::size_t l = 0; l < 2; ++l) {
    for (int p = 0; p < kNumPhases; ++p) EXPECT_EQ(sum.layer_ns[l][p], 2 * one.layer_ns[l][p]);
    EXPECT_EQ(sum.wall_ns[l], 2 * one.wall_ns[l]);
    EXPECT_EQ(sum.exposed_comm_ns[l], 2 * one.exposed_comm_ns[l]);
  }
  for (const auto m : doubles) EXPECT_EQ(sum.*m, 2 * one.*m);
  for (const auto m : counts) EXPECT_EQ(sum.*m, 2 * one.*m);
}

}  // namespace
}  // namespace moesim::sim
