// LoadStats (sim/load_stats.h): the bucketed rank series widens without losing pairs, routing
// draws land on the right experts and ranks, reversed link loads go to the opposite link, and
// a simulated run's loads add up to the pairs and bytes its breakdown counts.
#include "sim/load_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "sim/check.h"
#include "sim/moe_comm.h"
#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"
#include "topology/aggregated_all_to_all.h"
#include "topology/cluster.h"
#include "topology/fabric_graph.h"

namespace moesim::sim {
namespace {

std::int64_t series_total(const RankLoadSeries& s, int rank) {
  std::int64_t t = 0;
  for (int b = 0; b < s.buckets(); ++b) t += s.at(b, rank);
  return t;
}

TEST(RankLoadSeries, DoublesTheBucketWidthWhenTimeRunsPastTheLastBucket) {
  RankLoadSeries s(2, 4, 10);  // 4 buckets of 10 ns
  s.add(0, std::vector<std::int64_t>{1, 10});
  s.add(15, 0, 2);
  s.add(39, 1, 5);
  EXPECT_EQ(s.buckets(), 4);
  EXPECT_EQ(s.bucket_ns(), 10);
  EXPECT_EQ(s.at(1, 0), 2);
  EXPECT_EQ(s.at(3, 1), 5);
  s.add(40, 0, 7);  // past 4 x 10 ns: buckets of 20 ns, [0,20) = old 0 + 1, [20,40) = old 2 + 3
  EXPECT_EQ(s.bucket_ns(), 20);
  EXPECT_EQ(s.buckets(), 3);
  EXPECT_EQ(s.at(0, 0), 1 + 2);
  EXPECT_EQ(s.at(0, 1), 10);
  EXPECT_EQ(s.at(1, 1), 5);
  EXPECT_EQ(s.at(2, 0), 7);
  s.add(1000, 1, 1);  // 1000 / 4 buckets: widened to 320 ns
  EXPECT_EQ(s.bucket_ns(), 320);
  EXPECT_EQ(s.buckets(), 4);
  EXPECT_EQ(s.at(3, 1), 1);
  EXPECT_EQ(series_total(s, 0), 1 + 2 + 7);
  EXPECT_EQ(series_total(s, 1), 10 + 5 + 1);
}

TEST(RankLoadSeries, SeriesKeptApartAddUpToTheOneSeriesOfAllTheirValues) {
  // Three instances of two ranks each, their values at times that widen the buckets differently
  // (one never, one twice): kept apart and added, they make the series of every value added to
  // one, bucket by bucket, whatever the order.
  std::mt19937_64 gen(5);
  RankLoadSeries together(6, 5, 10);
  std::vector<RankLoadSeries> apart(3, RankLoadSeries(2, 5, 10));
  const std::int64_t last_time[3] = {30, 190, 75};
  for (int i = 0; i < 200; ++i) {
    const int inst = static_cast<int>(gen() % 3), rank = static_cast<int>(gen() % 2);
    const auto t = static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(last_time[inst] + 1));
    const auto v = static_cast<std::int64_t>(gen() % 9);
    together.add(t, inst * 2 + rank, v);
    apart[static_cast<std::size_t>(inst)].add(t, rank, v);
  }
  RankLoadSeries merged(6, 5, 10);
  for (const int inst : {2, 0, 1}) merged.add(apart[static_cast<std::size_t>(inst)], inst * 2);
  EXPECT_EQ(merged.bucket_ns(), together.bucket_ns());
  ASSERT_EQ(merged.buckets(), together.buckets());
  for (int b = 0; b < merged.buckets(); ++b)
    for (int r = 0; r < 6; ++r) EXPECT_EQ(merged.at(b, r), together.at(b, r)) << b << " " << r;
  EXPECT_THROW(merged.add(apart[0], 5), InvariantError);  // ranks 5 and 6 of 6
}

TEST(LoadStats, AnInstancesOwnStatisticsAddToItsPoolsAsItsRanks) {
  LoadStats pool(2, 4, 2, 3, 5), own(2, 4, 1, 3, 5);
  own.begin_step(0, 1'000);
  own.add_routing(0, 1'000, 1, std::vector<std::int64_t>{1, 2, 3, 4}, std::vector<std::int64_t>{5, 0, 5});
  own.add_links(std::vector<double>{0, 1.5, 0, 0, 2.0});
  pool.add(own, 1);
  pool.add(own, 1);
  EXPECT_EQ(pool.expert_pairs, (std::vector<std::int64_t>{0, 0, 0, 0, 2, 4, 6, 8}));
  EXPECT_EQ(series_total(pool.rank_pairs, 3), 10);  // instance 1's first rank is pool rank 3
  EXPECT_EQ(series_total(pool.rank_pairs, 0), 0);
  EXPECT_EQ(series_total(pool.step_starts, 1), 2);
  EXPECT_EQ(pool.link_bytes, (std::vector<double>{0, 3.0, 0, 0, 4.0}));
  EXPECT_THROW(pool.add(own, 2), InvariantError);
  EXPECT_THROW(pool.add(LoadStats(2, 4, 2, 3, 5), 0), InvariantError);  // not one instance's
}

TEST(LoadStats, RoutingDrawAddsExpertPairsAndEachRanksReceivedPairs) {
  LoadStats load(/*moe_layers=*/2, /*experts=*/3, /*instances=*/2, /*ranks_per_instance=*/2, /*links=*/0);
  const std::vector<std::int64_t> rank_pairs{1 + 2, 3 + 4};  // each rank's slots' counts summed
  const std::vector<std::int64_t> expert_counts{4, 3, 3};
  load.add_routing(/*instance=*/1, /*step_start_ns=*/5'000'000, /*moe_layer=*/1, expert_counts, rank_pairs);
  load.add_routing(1, 5'000'000, 1, expert_counts, rank_pairs);
  EXPECT_EQ(load.expert_pairs, (std::vector<std::int64_t>{0, 0, 0, 8, 6, 6}));
  const auto& s = load.rank_pairs;
  ASSERT_EQ(s.ranks(), 4);
  const int b = static_cast<int>(5'000'000 / s.bucket_ns());
  EXPECT_EQ(s.at(b, 2), 2 * (1 + 2));  // instance 1, rank 0
  EXPECT_EQ(s.at(b, 3), 2 * (3 + 4));
  EXPECT_EQ(series_total(s, 0) + series_total(s, 1), 0);
  // One value per rank of the instance, or the shape is wrong.
  EXPECT_THROW(load.add_routing(0, 0, 0, expert_counts, std::vector<std::int64_t>{1, 2, 3}), InvariantError);
}

TEST(LoadStats, ReversedLinkBytesLandOnTheOppositeLink) {
  LoadStats load(1, 1, 1, 1, 3);
  load.add_links(std::vector<double>{1, 2, 3});
  load.add_links_reversed(std::vector<double>{10, 0, 30}, std::vector<int>{1, 0, 2}, 0.5);
  EXPECT_EQ(load.link_bytes, (std::vector<double>{1, 2 + 5, 3 + 15}));
}

// A closed-form all-to-all lists the links it loads; booking only those books exactly what a
// scan of every link would.
TEST(LoadStats, ListedLinksBookWhatAFullScanBooks) {
  topology::ClusterConfig c;
  c.nodes = 3;
  const topology::Cluster cluster(c);
  const std::vector<int> devices{0, 1, 2, 3, 8, 9, 16, 17};
  topology::AllToAllTraffic t;
  const int n = static_cast<int>(devices.size());
  t.expert_bytes = topology::TrafficMatrix(n);
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d && (s + d) % 3 != 0) t.expert_bytes.at(s, d) = 100.0 * (1 + s) + d;
  t.pair_bytes = t.expert_bytes;
  t.node_bytes = topology::NodeTrafficMatrix(n, cluster.num_nodes());
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      t.node_bytes.at(s, cluster.node_of(devices[static_cast<std::size_t>(d)])) += t.pair_bytes.at(s, d);
  topology::AllToAllOptions o;
  o.algorithm = &topology::find_all_to_all("low-latency");
  o.scale = 7456;
  const topology::AggregatedAllToAll agg(cluster, devices);
  const auto r = agg(topology::aggregate_traffic(cluster, devices, t), o);
  ASSERT_TRUE(r.links_listed);
  std::vector<int> nonzero;
  for (std::size_t l = 0; l < r.link_bytes.size(); ++l)
    if (r.link_bytes[l] != 0) nonzero.push_back(static_cast<int>(l));
  auto listed = r.loaded_links;
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, nonzero);
  EXPECT_FALSE(nonzero.empty());
  const auto reverse = reverse_links(cluster);
  LoadStats sparse(1, 1, 1, 1, cluster.num_links()), dense(1, 1, 1, 1, cluster.num_links());
  sparse.add_links(r, 2.0);
  sparse.add_links_reversed(r, reverse, 0.5);
  dense.add_links(r.link_bytes, 2.0);
  dense.add_links_reversed(r.link_bytes, reverse, 0.5);
  EXPECT_EQ(sparse.link_bytes, dense.link_bytes);
}

TEST(LoadStats, ReverseLinksSwapTheEndPoints) {
  topology::ClusterConfig c;
  c.nodes = 2;
  const topology::Cluster cluster(c);
  const auto reverse = reverse_links(cluster);
  const auto& g = topology::graph(cluster);
  ASSERT_EQ(static_cast<int>(reverse.size()), cluster.num_links());
  for (int l = 0; l < cluster.num_links(); ++l) {
    const int r = reverse[static_cast<std::size_t>(l)];
    ASSERT_NE(r, l) << cluster.link_name(l);
    EXPECT_EQ(boost::source(topology::link_edge(cluster, r), g), boost::target(topology::link_edge(cluster, l), g));
    EXPECT_EQ(boost::target(topology::link_edge(cluster, r), g), boost::source(topology::link_edge(cluster, l), g));
  }
}

TEST(LoadStats, RunLoadsAddUpToTheRoutedPairsAndFabricBytes) {
  auto config = testing::tiny_config(40);  // one HGX node: every all-to-all is on NVLink
  config.deployment.colocated.comm.all_to_all = sim::find_moe_comm("direct");
  const auto r = simulate(config);
  const auto& pool = r.pools.at(0);
  const auto& load = pool.load;
  EXPECT_EQ(load.moe_layers, config.model.num_moe_layers());
  EXPECT_EQ(load.experts, config.model.routed_experts);
  const auto pairs = std::accumulate(load.expert_pairs.begin(), load.expert_pairs.end(), std::int64_t{0});
  EXPECT_EQ(pairs, pool.breakdown.tokens_routed);
  std::int64_t received = 0;
  for (int rank = 0; rank < load.rank_pairs.ranks(); ++rank) received += series_total(load.rank_pairs, rank);
  EXPECT_EQ(received, pool.breakdown.tokens_combined);
  EXPECT_EQ(series_total(load.step_starts, 0), pool.steps);
  EXPECT_EQ(load.step_starts.bucket_ns(), load.rank_pairs.bucket_ns());
  EXPECT_EQ(load.step_starts.buckets(), load.rank_pairs.buckets());
  // Each byte of dispatch and combine leaves on one device's NVLink and arrives on another's.
  const topology::Cluster cluster(config.cluster);
  double scaleup = 0, other = 0;
  for (int l = 0; l < cluster.num_links(); ++l)
    (cluster.link_props(l).cls == topology::LinkClass::kScaleUp ? scaleup : other) +=
        load.link_bytes[static_cast<std::size_t>(l)];
  const double fabric = pool.breakdown.dispatch_bytes + pool.breakdown.combine_bytes;
  ASSERT_GT(fabric, 0.0);
  EXPECT_LE(other, 1e-12 * fabric);  // rounding residue of the closed form's volumes, no traffic
  EXPECT_NEAR(scaleup, 2 * fabric, 1e-9 * fabric);
}

}  // namespace
}  // namespace moesim::sim
