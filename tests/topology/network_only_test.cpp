// All-to-all with every pair over the scale-out network (AllToAllOptions::network_only: DeepEP
// low-latency kernels without NVLink traffic): no scale-up bytes, intra-node pairs through both
// NICs and, where their leaves differ, a spine; the closed form, the routed schedule and the
// aggregated margins must agree on it as they do without it.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/topology/topology_test_util.h"
#include "topology/aggregated_all_to_all.h"
#include "topology/all_to_all.h"
#include "topology/fidelity.h"

namespace moesim::topology {
namespace {

using testing::identity;

// Empty low-latency traffic over `ranks` ranks: one 7456-byte message per token-expert pair.
AllToAllTraffic ll_traffic(int ranks) {
  AllToAllTraffic t;
  t.expert_bytes = TrafficMatrix(ranks);
  t.pair_bytes = TrafficMatrix(ranks);
  t.message_bytes = 7456;
  return t;
}

// Skewed Poisson pair counts from every rank to every rank (self included: it stays free).
AllToAllTraffic skewed(int ranks, unsigned seed) {
  std::mt19937_64 rng(seed);
  AllToAllTraffic t = ll_traffic(ranks);
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d) {
      const double p = std::poisson_distribution<int>(30.0 * (d % 5 == 2 ? 3.0 : 1.0))(rng);
      t.expert_bytes.at(s, d) = p;
      t.pair_bytes.at(s, d) = 0.75 * p;
    }
  return t;
}

AllToAllOptions network_only(const char* algorithm, Direction dir = Direction::kDispatch) {
  AllToAllOptions o;
  o.algorithm = &find_all_to_all(algorithm);
  o.scale = 7456;
  o.direction = dir;
  o.network_only = true;
  return o;
}

ClusterConfig fabric(const std::string& name) {
  ClusterConfig c = cluster_preset_defaults(name == "hgx-4-rails" || name == "tor" ? "generic" : "hgx");
  c.nodes = 4;
  if (name == "hgx-4-rails") c.rails = 4;
  if (name == "tor") c.rails = 0;
  if (name != "hgx") c.oversubscription = 2.0;  // let the leaf uplinks bind
  return c;
}

TEST(NetworkOnlyAllToAll, IntraNodePairsTakeBothNicsAndTheSpine) {
  ClusterConfig cfg;
  cfg.nodes = 2;
  const Cluster c(cfg);
  AllToAllTraffic t = ll_traffic(16);
  t.pair_bytes.at(0, 1) = t.expert_bytes.at(0, 1) = 100;  // GPU 0 -> GPU 1 of node 0
  const CommResult r = all_to_all(c, identity(16), t, network_only("low-latency"));
  const DeviceLinks& a = c.device_links(0);
  const DeviceLinks& b = c.device_links(1);
  EXPECT_DOUBLE_EQ(r.link_bytes[static_cast<std::size_t>(a.scaleup_out)], 0.0);
  EXPECT_DOUBLE_EQ(r.link_bytes[static_cast<std::size_t>(a.nic_out)], 100 * 7456.0);
  EXPECT_DOUBLE_EQ(r.link_bytes[static_cast<std::size_t>(b.nic_in)], 100 * 7456.0);
  // Rails 0 and 1 are different leaves: the pairs climb to the spines and back.
  double up = 0;
  for (const int id : c.leaves()[static_cast<std::size_t>(a.leaf)].up) up += r.link_bytes[static_cast<std::size_t>(id)];
  EXPECT_DOUBLE_EQ(up, 100 * 7456.0);
  EXPECT_NEAR(r.message_ns, 100 * 1e9 / cfg.nic_messages_per_s, 1e-9);
  // Over the scale-up fabric the same pairs never touch a NIC.
  AllToAllOptions nvlink = network_only("low-latency");
  nvlink.network_only = false;
  const CommResult s = all_to_all(c, identity(16), t, nvlink);
  EXPECT_DOUBLE_EQ(s.link_bytes[static_cast<std::size_t>(a.nic_out)], 0.0);
  EXPECT_DOUBLE_EQ(s.link_bytes[static_cast<std::size_t>(a.scaleup_out)], 100 * 7456.0);
}

TEST(NetworkOnlyAllToAll, UniformTrafficCostsTheExtraNicShare) {
  // 9 HGX nodes, 72 ranks, every pair equal: the NICs carry 71 peers' traffic instead of 64.
  ClusterConfig cfg;
  cfg.nodes = 9;
  const Cluster c(cfg);
  AllToAllTraffic t = ll_traffic(72);
  for (int s = 0; s < 72; ++s)
    for (int d = 0; d < 72; ++d) t.pair_bytes.at(s, d) = t.expert_bytes.at(s, d) = 4;
  AllToAllOptions rdma = network_only("low-latency");
  AllToAllOptions nvlink = rdma;
  nvlink.network_only = false;
  const CommResult a = all_to_all(c, identity(72), t, rdma), b = all_to_all(c, identity(72), t, nvlink);
  EXPECT_EQ(c.link_props(a.bottleneck_link).cls, LinkClass::kScaleOut);
  EXPECT_NEAR(a.transfer_ns / b.transfer_ns, 71.0 / 64.0, 1e-9);
  EXPECT_NEAR(a.message_ns / b.message_ns, 71.0 / 64.0, 1e-9);
}

TEST(NetworkOnlyAllToAll, ClosedFormLoadsEveryLinkAsTheRoutedSchedule) {
  for (const std::string name : {"hgx", "hgx-4-rails", "tor"}) {
    const Cluster c(fabric(name));
    const int n = c.num_devices();
    const auto devices = identity(n);
    const auto t = skewed(n, 3);
    for (const char* algo : {"direct", "low-latency"})
      for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
        const auto o = network_only(algo, dir);
        const CommResult closed = all_to_all(c, devices, t, o);
        const CommResult routed = run_schedule(c, all_to_all_schedule(c, devices, t, o), find_fidelity("analytic"));
        ASSERT_EQ(closed.link_bytes.size(), routed.link_bytes.size());
        for (std::size_t l = 0; l < closed.link_bytes.size(); ++l)
          EXPECT_NEAR(closed.link_bytes[l], routed.link_bytes[l], 1e-9 * std::max(1.0, routed.link_bytes[l]))
              << name << " " << algo << " " << c.link_name(static_cast<int>(l));
        // The routed schedule is the transfer alone; the closed form adds the kernels' fixed cost.
        EXPECT_NEAR(closed.duration_ns - closed.fixed_ns, routed.duration_ns, 1e-9 * routed.duration_ns)
            << name << " " << algo;
        // Max-min sharing never beats the bottleneck link.
        AllToAllOptions flow = o;
        flow.fidelity = &flow_fidelity();
        EXPECT_GE(all_to_all(c, devices, t, flow).transfer_ns, closed.transfer_ns * (1 - 1e-9)) << name << " " << algo;
      }
  }
}

TEST(NetworkOnlyAllToAll, AggregatedMarginsLoadDevicesAsTheFullMatrix) {
  for (const std::string name : {"hgx", "hgx-4-rails", "tor"}) {
    const Cluster c(fabric(name));
    const int n = c.num_devices();
    const auto devices = identity(n);
    const auto t = skewed(n, 5);
    const AggregatedAllToAll agg(c, devices);
    const AggregatedTraffic margins = aggregate_traffic(c, devices, t);
    for (const char* algo : {"direct", "low-latency"}) {
      const auto o = network_only(algo);
      const CommResult full = all_to_all(c, devices, t, o), a = agg(margins, o);
      for (int d = 0; d < n; ++d) {
        const DeviceLinks& dl = c.device_links(d);
        for (const int l : {dl.scaleup_out, dl.scaleup_in, dl.nic_out, dl.nic_in}) {
          if (l < 0) continue;
          const double f = full.link_bytes[static_cast<std::size_t>(l)];
          EXPECT_NEAR(a.link_bytes[static_cast<std::size_t>(l)], f, 1e-9 * std::max(1.0, f))
              << name << " " << c.link_name(l);
        }
      }
      // What climbs to the spines: with rails every intra-node pair does (a quarter of what
      // climbs here), with top of rack none; the leaf shares of the pairs between nodes are
      // expectations (exact only top of rack), as are those of intra-node pairs on 4 rails.
      double spine_full = 0, spine_agg = 0;
      for (const LeafLinks& leaf : c.leaves())
        for (const int id : leaf.up) {
          spine_full += full.link_bytes[static_cast<std::size_t>(id)];
          spine_agg += a.link_bytes[static_cast<std::size_t>(id)];
        }
      EXPECT_GT(name == "tor" ? 1.0 : spine_full, 0.0);
      EXPECT_NEAR(spine_agg, spine_full,
                  (name == "hgx-4-rails" ? 0.02
                   : name == "hgx"       ? 1e-3
                                         : 1e-9) *
                      std::max(1.0, spine_full))
          << name;
      EXPECT_NEAR(a.transfer_ns, full.transfer_ns, 0.03 * full.transfer_ns) << name << " " << algo;
      EXPECT_NEAR(a.message_ns, full.message_ns, 1e-9 * full.message_ns) << name << " " << algo;
    }
  }
}

TEST(NetworkOnlyAllToAll, HierarchicalForwardingRefusesIt) {
  ClusterConfig cfg;
  cfg.nodes = 2;
  const Cluster c(cfg);
  const auto t = skewed(16, 1);
  const auto o = network_only("hierarchical");
  try {
    all_to_all(c, identity(16), t, o);
    FAIL() << "expected a TopologyError";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(
        e.what(),
        "hierarchical all-to-all forwards over the scale-up fabric: it cannot send every pair over the network");
  }
  const AggregatedAllToAll agg(c, identity(16));
  EXPECT_THROW(agg(aggregate_traffic(c, identity(16), t), o), TopologyError);
}

}  // namespace
}  // namespace moesim::topology
