// The aggregated all-to-all (margins in, per-device volumes out) against the full-matrix closed
// form on the same traffic: device links must carry identical bytes; the leaf and forwarding
// splits, taken at their conditional expectation, must land close.
#include "topology/aggregated_all_to_all.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/topology/topology_test_util.h"
#include "topology/a2a_closed_form.h"
#include "topology/all_to_all.h"

namespace moesim::topology {
namespace {

using testing::identity;

// MoE-like traffic: every source sends Poisson pair counts to every rank with a rank-dependent
// (skewed) mean; rank tokens deduplicate pairs at a fixed ratio, node tokens per node likewise.
AllToAllTraffic moe_like(const Cluster& c, int ranks, unsigned seed, double hot = 1.0) {
  std::mt19937_64 rng(seed);
  AllToAllTraffic t;
  t.expert_bytes = TrafficMatrix(ranks);
  t.pair_bytes = TrafficMatrix(ranks);
  t.node_bytes = NodeTrafficMatrix(ranks, c.num_nodes());
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d) {
      const double mean = 40.0 * (d % 7 == 3 ? hot : 1.0) * (1.0 + 0.5 * std::sin(d));
      const double p = std::poisson_distribution<int>(mean)(rng);
      t.expert_bytes.at(s, d) = p;
      t.pair_bytes.at(s, d) = 0.8 * p;
      t.node_bytes.at(s, c.node_of(d)) += 0.6 * p;
    }
  t.message_bytes = 7456;
  return t;
}

void expect_same_device_loads(const Cluster& c, const CommResult& full, const CommResult& agg) {
  ASSERT_EQ(full.link_bytes.size(), agg.link_bytes.size());
  for (int d = 0; d < c.num_devices(); ++d) {
    const DeviceLinks& dl = c.device_links(d);
    for (const int l : {dl.scaleup_out, dl.scaleup_in, dl.nic_out, dl.nic_in}) {
      if (l < 0) continue;
      const double f = full.link_bytes[static_cast<std::size_t>(l)], a = agg.link_bytes[static_cast<std::size_t>(l)];
      EXPECT_NEAR(a, f, 1e-9 * std::max(1.0, f)) << c.link_name(l);
    }
  }
}

// 8 nodes of 4 devices on 4 rails whose leaf uplinks are oversubscribed 4:1, so they can bind.
ClusterConfig oversubscribed_rails() {
  ClusterConfig cfg = cluster_preset_defaults("generic");
  cfg.nodes = 8;
  cfg.devices_per_node = 4;
  cfg.rails = 4;
  cfg.oversubscription = 4.0;
  return cfg;
}

AllToAllOptions options(const char* algorithm, double scale, Direction dir = Direction::kDispatch) {
  AllToAllOptions o;
  o.algorithm = &find_all_to_all(algorithm);
  o.scale = scale;
  o.direction = dir;
  return o;
}

TEST(AggregatedAllToAll, DirectAndLowLatencyLoadDevicesExactlyAsTheFullMatrix) {
  ClusterConfig cfg;
  cfg.nodes = 4;
  const Cluster c(cfg);
  const auto devices = identity(32);
  const auto t = moe_like(c, 32, 1, 3.0);
  const AggregatedAllToAll agg(c, devices);
  const AggregatedTraffic margins = aggregate_traffic(c, devices, t);
  for (const char* algo : {"direct", "low-latency"})
    for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
      const auto o = options(algo, 7456, dir);
      const CommResult full = all_to_all(c, devices, t, o);
      const CommResult a = agg(margins, o);
      expect_same_device_loads(c, full, a);
      // Rail-optimised leaves do not bind here, so the durations agree to rounding.
      EXPECT_NEAR(a.transfer_ns, full.transfer_ns, 1e-9 * full.transfer_ns) << algo;
      EXPECT_NEAR(a.duration_ns, full.duration_ns, 1e-3 * full.duration_ns) << algo;
      EXPECT_EQ(a.bottleneck_link, full.bottleneck_link) << algo;
    }
}

TEST(AggregatedAllToAll, LowLatencyCountsOneMessagePerPair) {
  ClusterConfig cfg;
  cfg.nodes = 2;
  const Cluster c(cfg);
  const auto devices = identity(16);
  AllToAllTraffic t;
  t.pair_bytes = TrafficMatrix(16);
  t.expert_bytes = TrafficMatrix(16);
  t.pair_bytes.at(0, 9) = t.expert_bytes.at(0, 9) = 1000;  // 1,000 token-expert pairs to node 1
  t.message_bytes = 7456;
  const AggregatedAllToAll agg(c, devices);
  const auto r = agg(aggregate_traffic(c, devices, t), options("low-latency", 7456));
  EXPECT_NEAR(r.message_ns, 1000 * 1e9 / cfg.nic_messages_per_s, 1e-9);
}

TEST(AggregatedAllToAll, CrossLeafTrafficMatchesWhenOversubscriptionBinds) {
  const ClusterConfig cfg = oversubscribed_rails();
  const Cluster c(cfg);
  const auto devices = identity(32);
  const auto t = moe_like(c, 32, 2);
  const AggregatedAllToAll agg(c, devices);
  const auto margins = aggregate_traffic(c, devices, t);
  for (const char* algo : {"direct", "low-latency", "hierarchical"}) {
    const auto o = options(algo, 7456);
    const CommResult full = all_to_all(c, devices, t, o);
    const CommResult a = agg(margins, o);
    if (std::string(algo) != "hierarchical") {  // the case exercises the leaf uplinks
      EXPECT_EQ(c.link_props(full.bottleneck_link).cls, LinkClass::kFabric) << c.link_name(full.bottleneck_link);
    }
    // Expectation-based cross-leaf splits: within a few per cent of the exact routed loads.
    std::printf("%s: full %.1f us, aggregated %.1f us\n", algo, full.transfer_ns / 1e3, a.transfer_ns / 1e3);
    EXPECT_NEAR(a.transfer_ns, full.transfer_ns, 0.03 * full.transfer_ns) << algo;
  }
}

TEST(AggregatedAllToAll, HierarchicalForwardingCloseToTheFullMatrix) {
  ClusterConfig cfg;
  cfg.nodes = 4;
  const Cluster c(cfg);
  const auto devices = identity(32);
  const auto t = moe_like(c, 32, 3, 2.0);
  const AggregatedAllToAll agg(c, devices);
  const auto margins = aggregate_traffic(c, devices, t);
  for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
    const auto o = options("hierarchical", 7456, dir);
    const CommResult full = all_to_all(c, devices, t, o);
    const CommResult a = agg(margins, o);
    // The network hop is exact; the NVLink fan-out is split by expected shares.
    for (int d = 0; d < c.num_devices(); ++d) {
      const DeviceLinks& dl = c.device_links(d);
      for (const int l : {dl.nic_out, dl.nic_in})
        EXPECT_NEAR(a.link_bytes[static_cast<std::size_t>(l)], full.link_bytes[static_cast<std::size_t>(l)],
                    1e-9 * full.link_bytes[static_cast<std::size_t>(l)]);
    }
    EXPECT_NEAR(a.transfer_ns, full.transfer_ns, 0.05 * full.transfer_ns);
  }
}

TEST(AggregatedAllToAll, SupernodesAndPartialNodes) {
  for (const char* preset : {"nvl72", "cloudmatrix384"}) {
    ClusterConfig cfg = cluster_preset_defaults(preset);
    cfg.nodes = 2;
    const Cluster c(cfg);
    // A placement that starts mid-node and spans two domains.
    std::vector<int> devices;
    for (int d = cfg.devices_per_node - 24; d < cfg.devices_per_node + 40; ++d) devices.push_back(d);
    const int ranks = static_cast<int>(devices.size());
    std::mt19937_64 rng(4);
    AllToAllTraffic t;
    t.pair_bytes = TrafficMatrix(ranks);
    for (int s = 0; s < ranks; ++s)
      for (int d = 0; d < ranks; ++d) t.pair_bytes.at(s, d) = std::poisson_distribution<int>(20)(rng);
    const AggregatedAllToAll agg(c, devices);
    EXPECT_EQ(agg.nodes(), 2);
    const auto o = options("direct", 14336);
    const CommResult full = all_to_all(c, devices, t, o);
    const CommResult a = agg(aggregate_traffic(c, devices, t), o);
    expect_same_device_loads(c, full, a);
    EXPECT_NEAR(a.transfer_ns, full.transfer_ns, 1e-9 * full.transfer_ns) << preset;
  }
}

// Factored margins (traffic.h: a sender's remote traffic spread over the other nodes by weights)
// cost exactly as the rows they stand for, leaves included: on a rail fabric whose oversubscribed
// leaf uplinks bind, and on the default one, for every algorithm that reads them, both directions,
// with and without every pair on the network.
TEST(AggregatedAllToAll, FactoredMarginsCostAsTheirRows) {
  const ClusterConfig oversubscribed = oversubscribed_rails();
  ClusterConfig hgx;
  hgx.nodes = 6;
  int leaf_bound = 0;  // cases whose bottleneck is a leaf uplink or downlink
  for (const ClusterConfig& cfg : {oversubscribed, hgx}) {
    const Cluster c(cfg);
    const int ranks = cfg.nodes * cfg.devices_per_node, nodes = cfg.nodes;
    const auto devices = identity(ranks);
    const AggregatedAllToAll agg(c, devices);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    AggregatedTraffic factored, rows;
    factored.assign(ranks, nodes);
    for (auto* m : {&factored.pairs, &factored.rank_tokens, &factored.node_tokens}) {
      m->assign_factored(ranks, nodes);
      for (int n = 0; n < nodes; ++n) {
        m->spread_weight[static_cast<std::size_t>(n)] = 0.5 + u(rng);
        m->spread_norm[static_cast<std::size_t>(n)] = n == 2 ? 0.0 : 1.0 + 2 * u(rng);  // node 2 keeps its traffic
      }
      for (int s = 0; s < ranks; ++s) {
        const auto i = static_cast<std::size_t>(s);
        m->sent_own[i] = 30 * u(rng);
        m->sent_remote[i] = s % 5 == 1 ? 0.0 : 200 * u(rng);
        m->received_intra[i] = 40 * u(rng);
        m->received_remote[i] = 250 * u(rng) * (s % 7 == 3 ? 3 : 1);
      }
    }
    rows.assign(ranks, nodes);
    const auto domain = rank_domains(c, devices);
    for (auto [f, r] : {std::pair{&factored.pairs, &rows.pairs}, std::pair{&factored.rank_tokens, &rows.rank_tokens}}) {
      r->received_intra = f->received_intra;
      r->received_remote = f->received_remote;
      for (int s = 0; s < ranks; ++s)
        for (int n = 0; n < nodes; ++n)
          r->sent_to_node[static_cast<std::size_t>(s * nodes + n)] =
              f->sent(s, domain[static_cast<std::size_t>(s)], n, nodes);
    }
    factored.message_bytes = rows.message_bytes = 7456;
    for (const char* algo : {"direct", "low-latency"})
      for (const Direction dir : {Direction::kDispatch, Direction::kCombine})
        for (const bool network_only : {false, true}) {
          auto o = options(algo, 7456, dir);
          o.network_only = network_only;
          const CommResult a = agg(factored, o), b = agg(rows, o);
          ASSERT_EQ(a.link_bytes.size(), b.link_bytes.size());
          for (std::size_t l = 0; l < a.link_bytes.size(); ++l)
            EXPECT_NEAR(a.link_bytes[l], b.link_bytes[l], 1e-9 * std::max(1.0, b.link_bytes[l]))
                << c.link_name(static_cast<int>(l));
          EXPECT_NEAR(a.duration_ns, b.duration_ns, 1e-9 * b.duration_ns) << algo;
          EXPECT_EQ(a.bottleneck_link, b.bottleneck_link) << algo;
          leaf_bound += c.link_props(b.bottleneck_link).cls == LinkClass::kFabric ? 1 : 0;
        }
    try {
      agg(factored, options("hierarchical", 7456));
      FAIL() << "expected TopologyError";
    } catch (const TopologyError& e) {
      EXPECT_STREQ(e.what(), "hierarchical all-to-all needs each sender's traffic per node, not factored margins");
    }
  }
  EXPECT_GT(leaf_bound, 0);
}

// timing() gives exactly the timing of the full result, without link loads; the link loads of
// several all-to-alls' summed volumes are the sums of their link loads (what a step books once).
TEST(AggregatedAllToAll, TimingAloneAndLinksOfSummedVolumes) {
  const ClusterConfig oversubscribed = oversubscribed_rails();
  ClusterConfig hgx;
  hgx.nodes = 4;
  for (const ClusterConfig& cfg : {oversubscribed, hgx}) {
    const Cluster c(cfg);
    const int ranks = cfg.nodes * cfg.devices_per_node;
    const auto devices = identity(ranks);
    const AggregatedAllToAll agg(c, devices);
    for (const char* algo : {"direct", "low-latency"})
      for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
        const auto o = options(algo, 7456, dir);
        A2aVolumes sum, v;
        std::vector<double> summed_links(static_cast<std::size_t>(c.num_links()), 0.0);
        for (unsigned seed = 1; seed <= 3; ++seed) {
          const auto margins = aggregate_traffic(c, devices, moe_like(c, ranks, seed, 1.0 + seed));
          CommResult full, timed;
          agg(margins, o, v, full);
          agg.timing(margins, o, v, timed);
          EXPECT_EQ(timed.duration_ns, full.duration_ns) << algo;
          EXPECT_EQ(timed.transfer_ns, full.transfer_ns) << algo;
          EXPECT_EQ(timed.latency_ns, full.latency_ns) << algo;
          EXPECT_EQ(timed.message_ns, full.message_ns) << algo;
          EXPECT_TRUE(timed.link_bytes.empty());
          sum.add(v);
          for (std::size_t l = 0; l < summed_links.size(); ++l) summed_links[l] += full.link_bytes[l];
        }
        CommResult booked, booked_copy;
        agg.links(sum, o, booked);
        A2aVolumes copy;  // copy_volumes keeps what the links are booked from
        copy.copy_volumes(sum);
        agg.links(copy, o, booked_copy);
        EXPECT_EQ(booked_copy.link_bytes, booked.link_bytes) << algo;
        for (std::size_t l = 0; l < summed_links.size(); ++l)
          EXPECT_NEAR(booked.link_bytes[l], summed_links[l], 1e-9 * std::max(1.0, summed_links[l]))
              << c.link_name(static_cast<int>(l));
      }
  }
}

TEST(AggregatedAllToAll, RefusesFlowFidelityAndWrongShapes) {
  const Cluster c(ClusterConfig{});
  const auto devices = identity(8);
  const AggregatedAllToAll agg(c, devices);
  AggregatedTraffic t;
  t.assign(8, 1);
  AllToAllOptions o;
  o.fidelity = &flow_fidelity();
  try {
    agg(t, o);
    FAIL() << "expected TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "aggregated all-to-all: fidelity 'flow' needs the full traffic matrix");
  }
  t.assign(8, 2);
  try {
    agg(t, AllToAllOptions{});
    FAIL() << "expected TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "aggregated all-to-all: traffic margins and rank placement disagree on the shape");
  }
}

TEST(RankDomains, DenseInOrderOfFirstAppearance) {
  ClusterConfig cfg;
  cfg.nodes = 3;
  const Cluster c(cfg);
  EXPECT_EQ(rank_domains(c, {17, 3, 16, 0}), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_THROW(rank_domains(c, {24}), TopologyError);
}

}  // namespace
}  // namespace moesim::topology
