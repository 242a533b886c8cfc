// All-to-all algorithms at both fidelities: agreement on uniform traffic, flow never faster than
// the analytic bound on skewed traffic, a hot receiver lengthening the collective, ECMP, and the
// closed form matching the analytic fidelity on the routed schedule.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/topology/topology_test_util.h"
#include "topology/all_to_all.h"
#include "topology/fidelity.h"
#include "topology/flow_solver.h"
#include "topology/moe_traffic.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

using testing::identity;

Cluster make(const char* preset, int nodes, double oversubscription = 1) {
  ClusterConfig c = cluster_preset_defaults(preset);
  c.nodes = nodes;
  c.oversubscription = oversubscription;
  return Cluster(c);
}

TrafficMatrix uniform(int n, double bytes) {
  TrafficMatrix t(n);
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) t.at(s, d) = s == d ? 0 : bytes;
  return t;
}

// Uniform traffic, except that rank `hot` receives `factor` times the mean.
TrafficMatrix hot_receiver(int n, double bytes, int hot, double factor) {
  TrafficMatrix t = uniform(n, bytes);
  for (int s = 0; s < n; ++s)
    if (s != hot) t.at(s, hot) = bytes * factor;
  return t;
}

double run(const Cluster& c, const TrafficMatrix& t, const char* algo, const char* fidelity) {
  AllToAllOptions o;
  o.algorithm = &find_all_to_all(algo);
  o.fidelity = &find_fidelity(fidelity);
  return all_to_all(c, identity(t.ranks()), t, o).duration_ns;
}

TEST(AllToAllFidelity, AnalyticAndFlowAgreeWithin10PercentOnUniformTraffic) {
  for (const char* preset : {"hgx", "nvl72", "generic"})
    for (const char* algo : {"direct", "hierarchical", "low-latency"}) {
      const Cluster c = make(preset, 4, 2);
      const TrafficMatrix t = uniform(std::min(c.num_devices(), 64), 1 << 20);
      const double a = run(c, t, algo, "analytic"), f = run(c, t, algo, "flow");
      EXPECT_NEAR(f / a, 1.0, 0.10) << preset << " " << algo << ": analytic " << a << " flow " << f;
    }
}

TEST(AllToAllFidelity, FlowIsNeverFasterThanAnalyticOnSkewedTraffic) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> size(13.0, 1.5);
  const Cluster c = make("hgx", 4, 2);
  for (int trial = 0; trial < 5; ++trial) {
    TrafficMatrix t(32);
    for (int s = 0; s < 32; ++s)
      for (int d = 0; d < 32; ++d) t.at(s, d) = s == d ? 0 : size(rng);
    for (const char* algo : {"direct", "hierarchical", "low-latency"}) {
      const double a = run(c, t, algo, "analytic"), f = run(c, t, algo, "flow");
      EXPECT_GE(f, a * (1 - 1e-9)) << algo;
    }
  }
}

TEST(AllToAllFidelity, HotReceiverAtThreeTimesTheMeanLengthensTheCollective) {
  const Cluster c = make("hgx", 4);
  const TrafficMatrix base = uniform(32, 1 << 20), hot = hot_receiver(32, 1 << 20, 5, 3.0);
  for (const char* fidelity : {"analytic", "flow"}) {
    const double b = run(c, base, "direct", fidelity), h = run(c, hot, "direct", fidelity);
    // The hot rank's NIC receives 3x: the transfer part of the all-to-all triples.
    EXPECT_NEAR(h / b, 3.0, 0.3) << fidelity;
  }
  AllToAllOptions o;
  const CommResult r = all_to_all(c, identity(32), hot, o);
  EXPECT_EQ(r.bottleneck_device, 5);
  EXPECT_NE(c.link_name(r.bottleneck_link).find("nic5"), std::string::npos) << c.link_name(r.bottleneck_link);
}

TEST(AllToAllFidelity, ClosedFormEqualsAnalyticOnTheRoutedSchedule) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> size(0, 1e6);
  for (const char* preset : {"hgx", "generic"}) {
    const Cluster c = make(preset, 3, 3);
    TrafficMatrix t(24);
    for (int s = 0; s < 24; ++s)
      for (int d = 0; d < 24; ++d) t.at(s, d) = size(rng);
    for (const char* algo : {"direct", "hierarchical", "low-latency"})
      for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
        AllToAllOptions o;
        o.algorithm = &find_all_to_all(algo);
        o.direction = dir;
        const CommResult closed = all_to_all(c, identity(24), t, o);
        const CommResult routed =
            run_schedule(c, all_to_all_schedule(c, identity(24), TrafficView(t), o), find_fidelity("analytic"));
        // The routed schedule is the transfer alone; the closed form adds the kernels' fixed cost.
        EXPECT_NEAR(closed.duration_ns - closed.fixed_ns, routed.duration_ns, 1e-6 * routed.duration_ns)
            << preset << " " << algo;
        for (int l = 0; l < c.num_links(); ++l) {
          EXPECT_NEAR(closed.link_bytes[l], routed.link_bytes[l], 1e-6 * (1 + routed.link_bytes[l])) << c.link_name(l);
        }
      }
  }
}

TEST(AllToAllFidelity, FlowReportsTheRoutedLinkLoads) {
  // The flow model shares reduced routes (ECMP groups merged, host links dropped) but must
  // report every physical link's load as routing gives it.
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> size(0, 1e6);
  for (const char* preset : {"hgx", "generic", "nvl72", "cloudmatrix384"}) {
    const Cluster c = make(preset, preset == std::string("cloudmatrix384") ? 1 : 3, 2);
    const int n = std::min(c.num_devices(), 48);
    TrafficMatrix t(n);
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) t.at(s, d) = size(rng);
    for (const char* algo : {"direct", "hierarchical"}) {
      AllToAllOptions o;
      o.algorithm = &find_all_to_all(algo);
      const Schedule plan = all_to_all_schedule(c, identity(n), TrafficView(t), o);
      const CommResult routed = run_schedule(c, plan, find_fidelity("analytic"));
      const CommResult flow = run_schedule(c, plan, find_fidelity("flow"));
      for (int l = 0; l < c.num_links(); ++l) {
        EXPECT_NEAR(flow.link_bytes[l], routed.link_bytes[l], 1e-9 * (1 + routed.link_bytes[l]))
            << preset << " " << c.link_name(l);
      }
      EXPECT_EQ(flow.bottleneck_link, routed.bottleneck_link) << preset << " " << algo;
    }
  }
}

TEST(AllToAllFidelity, FlowReductionsLeaveTheSharingUnchanged) {
  // The flow model merges ECMP groups and drops links that cannot bind; solving the problem on
  // every physical link of every route must give the same time.
  std::mt19937_64 rng(21);
  std::lognormal_distribution<double> size(13.0, 1.0);
  for (const char* preset : {"hgx", "generic", "nvl72"})
    for (const double oversubscription : {1.0, 2.0}) {
      const Cluster c = make(preset, 3, oversubscription);
      const int n = std::min(c.num_devices(), 24);
      TrafficMatrix t(n);
      for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) t.at(s, d) = s == d ? 0 : size(rng);
      for (const char* algo : {"direct", "hierarchical"}) {
        AllToAllOptions o;
        o.algorithm = &find_all_to_all(algo);
        const Schedule plan = all_to_all_schedule(c, identity(n), TrafficView(t), o);
        FlowProblem full;
        for (int l = 0; l < c.num_links(); ++l) full.capacity.push_back(c.link_capacity(l));
        for (const Flow& f : plan.front().flows) {
          full.add_flow(f.bytes);
          for (const RouteHop& h : c.route(f.src, f.dst).hops) full.add_hop(h.link, h.fraction);
        }
        const double expected = max_min_completion_s(full) * 1e9;
        const double reduced = run_schedule(c, plan, find_fidelity("flow")).transfer_ns;
        EXPECT_NEAR(reduced, expected, 1e-6 * expected) << preset << " x" << oversubscription << " " << algo;
      }
    }
}

TEST(AllToAllAlgorithms, HierarchicalSendsEachTokenAcrossTheNetworkOncePerNode) {
  const Cluster c = make("hgx", 2);
  MoeRouting routing{1024, 256, 8, 2, 2};
  const AllToAllTraffic t = expected_moe_traffic(c, identity(16), routing);
  AllToAllOptions o;
  o.algorithm = &find_all_to_all("direct");
  const CommResult direct = all_to_all(c, identity(16), t, o);
  o.algorithm = &find_all_to_all("hierarchical");
  const CommResult hier = all_to_all(c, identity(16), t, o);
  // Direct sends a token to each of ~3.3 remote ranks, hierarchical once to the remote node.
  EXPECT_NEAR(hier.max_scaleout_bytes, t.node_bytes.at(0, 1), 1e-6 * hier.max_scaleout_bytes);
  EXPECT_GT(direct.max_scaleout_bytes, 3 * hier.max_scaleout_bytes);
  // Same rail: no byte reaches a spine.
  for (int l = 0; l < c.num_links(); ++l)
    if (c.link_props(l).cls == LinkClass::kFabric) {
      EXPECT_EQ(hier.link_bytes[l], 0) << c.link_name(l);
    }
}

TEST(AllToAllAlgorithms, LowLatencyPaysPerMessage) {
  const Cluster c = make("hgx", 2);
  AllToAllTraffic t;
  t.pair_bytes = uniform(16, 7456 * 16);
  t.message_bytes = 7456;
  AllToAllOptions o;
  o.algorithm = &find_all_to_all("low-latency");
  const CommResult r = all_to_all(c, identity(16), t, o);
  EXPECT_NEAR(r.message_ns, 8 * 16 * 1e9 / c.config().nic_messages_per_s, 1e-9);  // 8 remote peers x 16 tokens
  o.fidelity = &flow_fidelity();
  EXPECT_NEAR(all_to_all(c, identity(16), t, o).message_ns, r.message_ns, 1e-9);
}

TEST(AllToAllAlgorithms, UnknownNamesAndBadPlacementsThrow) {
  const Cluster c = make("hgx", 1);
  try {
    find_all_to_all("butterfly");
    ADD_FAILURE() << "an unknown algorithm was found";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "unknown all-to-all algorithm 'butterfly' (valid: direct, hierarchical, low-latency)");
  }
  AllToAllOptions o;
  o.algorithm = nullptr;
  EXPECT_THROW(all_to_all(c, identity(8), uniform(8, 1), o), TopologyError);
  o = {};
  EXPECT_THROW(find_fidelity("packet"), TopologyError);
  o.fidelity = nullptr;
  EXPECT_THROW(all_to_all(c, identity(8), uniform(8, 1), o), TopologyError);
  EXPECT_THROW(all_to_all(c, identity(16), uniform(16, 1)), TopologyError);  // more ranks than devices
  EXPECT_THROW(all_to_all(c, {0, 0}, uniform(2, 1)), TopologyError);         // two ranks on one device
}

TEST(Routing, EcmpSplitsCrossRailTrafficEvenlyOverTheSpines) {
  const Cluster c = make("hgx", 2);
  const Route& r = c.route(0, 9);  // rail 0 -> rail 1 on another node
  double on_spines = 0;
  int spine_links = 0;
  for (const RouteHop& h : r.hops)
    if (c.link_props(h.link).cls == LinkClass::kFabric) {
      on_spines += h.fraction;
      ++spine_links;
      EXPECT_DOUBLE_EQ(h.fraction, 1.0 / c.config().spines);
    }
  EXPECT_EQ(spine_links, 2 * c.config().spines);  // up to each spine and down from it
  EXPECT_DOUBLE_EQ(on_spines, 2.0);
  for (const RouteHop& h : c.route(0, 8).hops)  // same rail: leaf only
    EXPECT_NE(c.link_props(h.link).cls, LinkClass::kFabric);
  for (const RouteHop& h : c.route(0, 3).hops)  // same node: NVLink only
    EXPECT_EQ(c.link_props(h.link).cls, LinkClass::kScaleUp);
}

}  // namespace
}  // namespace moesim::topology
