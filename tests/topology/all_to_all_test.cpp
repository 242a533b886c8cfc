#include "topology/all_to_all.h"
#include "tests/topology/topology_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace moesim::topology {
namespace {

// Two HGX nodes of 8; distinct latencies so that each latency term can be told apart.
ClusterConfig two_nodes() {
  ClusterConfig c;
  c.nodes = 2;
  c.scaleup_latency_ns = 3'000;
  c.nic_latency_ns = 11'000;
  // These tests check the bandwidth and latency terms; the kernels' fixed costs are checked
  // against their measurements in tests/validation/nvl72_alltoall_test.cpp.
  c.a2a_dispatch_fixed_ns = c.a2a_combine_fixed_ns = c.a2a_dispatch_peer_ns = c.a2a_combine_peer_ns = 0;
  return c;
}

using testing::identity;

double ns(double bytes, double line_bytes_per_s, double efficiency) {
  return bytes / (line_bytes_per_s * efficiency) * 1e9;
}

constexpr double kB = 1 << 20;  // bytes per peer

TEST(AllToAllAnalytic, IntraNodeBoundByScaleUpBandwidth) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  TrafficMatrix t(16);
  for (int s = 0; s < 8; ++s)
    for (int d = 0; d < 8; ++d)
      if (s != d) t.at(s, d) = kB;
  const CollectiveCost cost = all_to_all_v_analytic(c, identity(16), t);
  // Each rank of node 0 sends to and receives from 7 peers over NVLink.
  const double expected = ns(7 * kB, cfg.scaleup_bytes_per_s, cfg.scaleup_efficiency) + cfg.scaleup_latency_ns;
  EXPECT_NEAR(cost.duration_ns, expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(cost.max_scaleup_bytes, 7 * kB);
  EXPECT_DOUBLE_EQ(cost.max_scaleout_bytes, 0);
}

TEST(AllToAllAnalytic, InterNodeBoundByNic) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  TrafficMatrix t(16);
  for (int s = 0; s < 8; ++s) {
    t.at(s, s + 8) = 3 * kB;  // same rail, other node
    t.at(s + 8, s) = 3 * kB;
  }
  const CollectiveCost cost = all_to_all_v_analytic(c, identity(16), t);
  const double expected = ns(3 * kB, cfg.nic_bytes_per_s, cfg.nic_efficiency) + cfg.nic_latency_ns;
  EXPECT_NEAR(cost.duration_ns, expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(cost.max_scaleup_bytes, 0);
  EXPECT_DOUBLE_EQ(cost.max_scaleout_bytes, 3 * kB);
}

TEST(AllToAllAnalytic, MixedTrafficTakesTheSlowerFabric) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  // Full all-to-all over 16 ranks: 7 NVLink peers and 8 RDMA peers per rank.
  TrafficMatrix t(16);
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d)
      if (s != d) t.at(s, d) = kB;
  const CollectiveCost cost = all_to_all_v_analytic(c, identity(16), t);
  const double up = ns(7 * kB, cfg.scaleup_bytes_per_s, cfg.scaleup_efficiency);
  const double out = ns(8 * kB, cfg.nic_bytes_per_s, cfg.nic_efficiency);
  ASSERT_GT(out, up);  // the NIC is the bottleneck on HGX defaults
  // NVLink and RDMA run concurrently: the slower fabric plus the longer latency.
  const double expected = std::max(up, out) + std::max(cfg.scaleup_latency_ns, cfg.nic_latency_ns);
  EXPECT_NEAR(cost.duration_ns, expected, 1e-9 * expected);
  EXPECT_DOUBLE_EQ(cost.max_scaleup_bytes, 7 * kB);
  EXPECT_DOUBLE_EQ(cost.max_scaleout_bytes, 8 * kB);
}

TEST(AllToAllAnalytic, ScaleUpBoundWhenNvlinkTrafficDominates) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  TrafficMatrix t(16);
  t.at(0, 1) = 100 * kB;  // NVLink
  t.at(0, 8) = kB;        // RDMA
  const CollectiveCost cost = all_to_all_v_analytic(c, identity(16), t);
  const double up = ns(100 * kB, cfg.scaleup_bytes_per_s, cfg.scaleup_efficiency);
  ASSERT_GT(up, ns(kB, cfg.nic_bytes_per_s, cfg.nic_efficiency));
  const double expected = up + std::max(cfg.scaleup_latency_ns, cfg.nic_latency_ns);
  EXPECT_NEAR(cost.duration_ns, expected, 1e-9 * expected);
  EXPECT_EQ(cost.bottleneck_rank, 0);
}

TEST(AllToAllAnalytic, SelfTrafficIsFree) {
  const Cluster c(two_nodes());
  TrafficMatrix self(16);
  for (int r = 0; r < 16; ++r) self.at(r, r) = 1e9;
  const CollectiveCost cost = all_to_all_v_analytic(c, identity(16), self);
  EXPECT_DOUBLE_EQ(cost.duration_ns, 0);
  EXPECT_DOUBLE_EQ(cost.max_scaleup_bytes, 0);
  EXPECT_DOUBLE_EQ(cost.max_scaleout_bytes, 0);

  // Adding self traffic to a real exchange changes nothing.
  TrafficMatrix t(16);
  t.at(0, 9) = kB;
  const double base = all_to_all_v_analytic(c, identity(16), t).duration_ns;
  t.at(0, 0) = 1e9;
  t.at(9, 9) = 1e9;
  EXPECT_DOUBLE_EQ(all_to_all_v_analytic(c, identity(16), t).duration_ns, base);
}

TEST(AllToAllAnalytic, EmptyMatrixCostsNothing) {
  const Cluster c(two_nodes());
  EXPECT_DOUBLE_EQ(all_to_all_v_analytic(c, identity(16), TrafficMatrix(16)).duration_ns, 0);
}

TEST(AllToAllAnalytic, HotReceiverTakesLongerThanBalancedOfSameTotal) {
  const Cluster c(two_nodes());
  TrafficMatrix balanced(16), hot(16);
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d)
      if (s != d) balanced.at(s, d) = kB;
  // Same total, all aimed at rank 5.
  const double per_sender = balanced.total_bytes() / 15;
  for (int s = 0; s < 16; ++s)
    if (s != 5) hot.at(s, 5) = per_sender;
  ASSERT_DOUBLE_EQ(hot.total_bytes(), balanced.total_bytes());
  const CollectiveCost b = all_to_all_v_analytic(c, identity(16), balanced);
  const CollectiveCost h = all_to_all_v_analytic(c, identity(16), hot);
  EXPECT_GT(h.duration_ns, 2 * b.duration_ns);
  EXPECT_EQ(h.bottleneck_rank, 5);
  // Rank 5 receives from its 8 peers on the other node over its one NIC.
  EXPECT_DOUBLE_EQ(h.max_scaleout_bytes, 8 * per_sender);
}

TEST(AllToAllAnalytic, LatencyOnlyForFabricsUsed) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  TrafficMatrix intra(16), inter(16), both(16);
  intra.at(2, 3) = 1;
  inter.at(2, 11) = 1;
  both.at(2, 3) = 1;
  both.at(2, 11) = 1;
  // One byte: the duration is the latency term (plus well under a nanosecond of transfer).
  EXPECT_NEAR(all_to_all_v_analytic(c, identity(16), intra).duration_ns, cfg.scaleup_latency_ns, 1.0);
  EXPECT_NEAR(all_to_all_v_analytic(c, identity(16), inter).duration_ns, cfg.nic_latency_ns, 1.0);
  EXPECT_NEAR(all_to_all_v_analytic(c, identity(16), both).duration_ns,
              std::max(cfg.scaleup_latency_ns, cfg.nic_latency_ns), 1.0);
}

TEST(AllToAllAnalytic, RankPlacementDecidesTheFabric) {
  const Cluster c(two_nodes());
  const auto& cfg = c.config();
  TrafficMatrix t(2);
  t.at(0, 1) = 4 * kB;
  const double same_node = all_to_all_v_analytic(c, {0, 1}, t).duration_ns;
  const double across = all_to_all_v_analytic(c, {0, 8}, t).duration_ns;
  EXPECT_NEAR(same_node, ns(4 * kB, cfg.scaleup_bytes_per_s, cfg.scaleup_efficiency) + cfg.scaleup_latency_ns, 1e-6);
  EXPECT_NEAR(across, ns(4 * kB, cfg.nic_bytes_per_s, cfg.nic_efficiency) + cfg.nic_latency_ns, 1e-6);
}

TEST(AllToAllAnalytic, RankCountMismatchThrows) {
  const Cluster c(two_nodes());
  EXPECT_THROW(all_to_all_v_analytic(c, identity(8), TrafficMatrix(16)), TopologyError);
  EXPECT_THROW(all_to_all_v_analytic(c, identity(16), TrafficMatrix(8)), TopologyError);
}

// The cluster keeps the layouts of the last few placements it costed: costing six placements
// (more than it keeps) twice over, in every algorithm, gives what a cluster that never saw any
// of them gives, and a bad placement still throws after good ones were kept.
TEST(AllToAllAnalytic, KeptLayoutsCostAsAFreshCluster) {
  const Cluster kept(two_nodes());
  std::vector<std::vector<int>> placements = {identity(16), identity(16), identity(8), {}, {}, {}};
  std::reverse(placements[1].begin(), placements[1].end());
  for (int d = 0; d < 16; ++d) {
    if (d >= 4 && d < 12) placements[3].push_back(d);
    if (d % 8 < 4) placements[4].push_back(d);
    if (d % 8 >= 6 || d % 8 == 1) placements[5].push_back(d);
  }
  for (int round = 0; round < 2; ++round)
    for (const std::vector<int>& devices : placements) {
      const int n = static_cast<int>(devices.size());
      TrafficMatrix t(n);
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) t.at(s, d) = ((s * 31 + d * 7) % 13) * kB;
      for (const char* algorithm : {"direct", "hierarchical", "low-latency"}) {
        AllToAllOptions o;
        o.algorithm = &find_all_to_all(algorithm);
        const CommResult again = all_to_all(kept, devices, t, o);
        const CommResult fresh = all_to_all(Cluster(two_nodes()), devices, t, o);
        EXPECT_EQ(again.duration_ns, fresh.duration_ns) << algorithm << " on " << n << " ranks";
        EXPECT_EQ(again.bottleneck_link, fresh.bottleneck_link);
        EXPECT_EQ(again.link_bytes, fresh.link_bytes);
      }
    }
  try {
    all_to_all(kept, {0, 3, 3}, TrafficMatrix(3));
    FAIL() << "no error for two ranks on one device";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "two ranks are placed on device 3");
  }
}

// Placements whose ranks are numbered node by node with the same local indices on every node take
// fast paths (direct and low-latency by leaf position or by node, hierarchical by rail). The same
// devices numbered in an interleaved order take the general paths: every link carries the same
// bytes (integer traffic, so exactly) and the durations agree.
TEST(AllToAllAnalytic, RailedPlacementsCostAsTheGeneralPath) {
  struct Case {
    const char* name;
    ClusterConfig config;
    std::vector<int> devices;  // node by node
  };
  std::vector<Case> cases;
  ClusterConfig rails8 = cluster_preset_defaults("hgx");
  rails8.nodes = 4;
  ClusterConfig rails4 = rails8;
  rails4.rails = 4;  // two positions of each node under one leaf
  ClusterConfig tor = cluster_preset_defaults("generic");
  tor.nodes = 4;
  tor.devices_per_node = 4;
  cases.push_back({"hgx rails 8", rails8, identity(32)});
  cases.push_back({"hgx rails 4", rails4, identity(32)});
  cases.push_back({"generic top-of-rack", tor, identity(16)});
  // Local indices 1, 3, 6 on every node, in a different order on each.
  cases.push_back({"hgx, shuffled locals", rails8, {1, 3, 6, 14, 9, 11, 19, 22, 17, 27, 30, 25}});
  for (const Case& c : cases) {
    const Cluster cluster(c.config);
    const int n = static_cast<int>(c.devices.size());
    const int nodes = cluster.num_nodes();
    // Interleaved: rank r of the second placement is rank perm[r] of the first.
    std::vector<int> perm;
    const int per_node = n / static_cast<int>(std::count_if(c.devices.begin(), c.devices.end(), [&](int d) {
                           return d % c.config.devices_per_node == c.devices[0] % c.config.devices_per_node;
                         }));
    for (int j = 0; j < per_node; ++j)
      for (int r = j; r < n; r += per_node) perm.push_back(r);
    std::vector<int> interleaved;
    for (const int r : perm) interleaved.push_back(c.devices[static_cast<std::size_t>(r)]);
    AllToAllTraffic a, b;
    a.pair_bytes = TrafficMatrix(n), b.pair_bytes = TrafficMatrix(n);
    a.expert_bytes = TrafficMatrix(n), b.expert_bytes = TrafficMatrix(n);
    a.node_bytes = NodeTrafficMatrix(n, nodes), b.node_bytes = NodeTrafficMatrix(n, nodes);
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        const double x = ((s * 37 + d * 11) % 7 == 0) ? 0.0 : ((s * 31 + d * 7) % 13) * 1000.0;
        a.pair_bytes.at(s, d) = x;
        a.expert_bytes.at(s, d) = 2 * x;
        a.node_bytes.at(s, c.devices[static_cast<std::size_t>(d)] / c.config.devices_per_node) += x;
      }
    for (int s = 0; s < n; ++s)
      for (int k = 0; k < nodes; ++k) a.node_bytes.at(s, k) = std::floor(a.node_bytes.at(s, k) * 0.75);
    for (int s = 0; s < n; ++s) {
      const int ps = perm[static_cast<std::size_t>(s)];
      for (int d = 0; d < n; ++d) {
        const int pd = perm[static_cast<std::size_t>(d)];
        b.pair_bytes.at(s, d) = a.pair_bytes.at(ps, pd);
        b.expert_bytes.at(s, d) = a.expert_bytes.at(ps, pd);
      }
      for (int k = 0; k < nodes; ++k) b.node_bytes.at(s, k) = a.node_bytes.at(ps, k);
    }
    for (const bool by_node : {false, true})
      for (const char* algorithm : {"direct", "hierarchical", "low-latency"})
        for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
          AllToAllOptions o;
          o.algorithm = &find_all_to_all(algorithm);
          o.direction = dir;
          AllToAllTraffic ta = a, tb = b;
          if (!by_node) ta.node_bytes = tb.node_bytes = NodeTrafficMatrix();
          const CommResult railed = all_to_all(cluster, c.devices, ta, o);
          const CommResult general = all_to_all(cluster, interleaved, tb, o);
          const std::string what = std::string(c.name) + ", " + algorithm + (by_node ? ", node matrix" : "") +
                                   (dir == Direction::kCombine ? ", combine" : ", dispatch");
          EXPECT_EQ(railed.link_bytes, general.link_bytes) << what;
          EXPECT_DOUBLE_EQ(railed.duration_ns, general.duration_ns) << what;
          EXPECT_GT(railed.duration_ns, 0) << what;
        }
  }
}

TEST(TrafficMatrix, TotalBytesSumsEveryEntry) {
  TrafficMatrix t(3);
  t.at(0, 1) = 1;
  t.at(1, 2) = 2;
  t.at(2, 2) = 4;
  EXPECT_DOUBLE_EQ(t.total_bytes(), 7);
  EXPECT_EQ(t.ranks(), 3);
}

}  // namespace
}  // namespace moesim::topology
