// The all-to-all algorithms' registry and implementations (topology/all_to_all_algorithm.h): each
// name resolves to the implementation that costs what that algorithm moves, an unknown name lists
// the valid ones, and the facts the simulator reads differ where the algorithms do.
#include "topology/all_to_all_algorithm.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/topology/topology_test_util.h"
#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/fidelity.h"
#include "topology/moe_traffic.h"

namespace moesim::topology {
namespace {

using testing::identity;

std::string what_of(std::string_view name) {
  try {
    find_all_to_all(name);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(AllToAllRegistry, EveryNameResolvesToItsImplementation) {
  const std::vector<std::string> names = {"direct", "hierarchical", "low-latency"};
  ASSERT_EQ(all_to_all_registry().size(), names.size());
  const std::vector<AlgorithmInfo> listed = all_to_all_algorithms();
  ASSERT_EQ(listed.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const AllToAllAlgorithm& a = find_all_to_all(names[i]);
    EXPECT_EQ(&a, all_to_all_registry()[i]) << names[i];
    EXPECT_EQ(a.name(), names[i]);
    EXPECT_EQ(listed[i].name, names[i]);
    EXPECT_EQ(listed[i].description, a.description());
    EXPECT_FALSE(a.description().empty()) << names[i];
  }
  EXPECT_EQ(&find_all_to_all("direct"), &direct_all_to_all());
  EXPECT_EQ(&find_all_to_all("hierarchical"), &hierarchical_all_to_all());
  EXPECT_EQ(&find_all_to_all("low-latency"), &low_latency_all_to_all());
  EXPECT_EQ(AllToAllOptions{}.algorithm, &direct_all_to_all());
}

TEST(AllToAllRegistry, AnUnknownNameListsTheValidOnes) {
  EXPECT_EQ(what_of("butterfly"),
            "unknown all-to-all algorithm 'butterfly' (valid: direct, hierarchical, low-latency)");
  EXPECT_EQ(what_of("Direct"), "unknown all-to-all algorithm 'Direct' (valid: direct, hierarchical, low-latency)");
  EXPECT_EQ(what_of(""), "unknown all-to-all algorithm '' (valid: direct, hierarchical, low-latency)");
}

TEST(AllToAllRegistry, FactsTheSimulatorReads) {
  const AllToAllAlgorithm &d = direct_all_to_all(), &h = hierarchical_all_to_all(), &ll = low_latency_all_to_all();
  EXPECT_FALSE(d.low_latency());
  EXPECT_FALSE(h.low_latency());
  EXPECT_TRUE(ll.low_latency());
  EXPECT_FALSE(d.forwards());
  EXPECT_TRUE(h.forwards());
  EXPECT_FALSE(ll.forwards());
  EXPECT_EQ(d.hbm_passes(), 2);
  EXPECT_EQ(h.hbm_passes(), 4);
  EXPECT_EQ(ll.hbm_passes(), 2);
  EXPECT_EQ(d.launches(), 1);
  EXPECT_EQ(h.launches(), 1);
  EXPECT_EQ(ll.launches(), 2);
}

TEST(AllToAllRegistry, OnlyTheLowLatencyKernelsPayNoFixedCost) {
  const ClusterConfig c = cluster_preset_defaults("nvl72");
  for (const Direction dir : {Direction::kDispatch, Direction::kCombine}) {
    AllToAllOptions o;
    o.direction = dir;
    const double expected = dir == Direction::kDispatch ? c.a2a_dispatch_fixed_ns + 7 * c.a2a_dispatch_peer_ns
                                                        : c.a2a_combine_fixed_ns + 7 * c.a2a_combine_peer_ns;
    for (const AllToAllAlgorithm* a : {&direct_all_to_all(), &hierarchical_all_to_all()}) {
      o.algorithm = a;
      EXPECT_DOUBLE_EQ(a->fixed_ns(c, o, 8), expected) << a->name();
      EXPECT_EQ(a->fixed_ns(c, o, 1), 0.0) << a->name();
    }
    o.algorithm = &low_latency_all_to_all();
    EXPECT_EQ(low_latency_all_to_all().fixed_ns(c, o, 8), 0.0);
  }
  EXPECT_GT(c.a2a_dispatch_fixed_ns, 0.0);  // the preset has a fixed cost to leave out
}

// Sums of a schedule's flows: all bytes, the bytes between nodes, and the messages.
struct FlowSums {
  double bytes = 0, between_nodes = 0, messages = 0;
};
FlowSums sums(const Cluster& c, const Schedule& s) {
  FlowSums out;
  for (const Stage& stage : s)
    for (const Flow& f : stage.flows) {
      out.bytes += f.bytes;
      if (c.node_of(f.src) != c.node_of(f.dst)) out.between_nodes += f.bytes;
      out.messages += f.messages;
    }
  return out;
}

double off_diagonal(const TrafficMatrix& m) {
  double sum = 0;
  for (int s = 0; s < m.ranks(); ++s)
    for (int d = 0; d < m.ranks(); ++d) sum += s == d ? 0.0 : m.at(s, d);
  return sum;
}

// Each implementation moves what its algorithm's name says: direct the per-rank matrix, low-latency
// every token-expert pair as messages, hierarchical each token across the network once per node.
TEST(AllToAllRegistry, EachImplementationMovesItsAlgorithmsTraffic) {
  ClusterConfig cfg = cluster_preset_defaults("hgx");
  cfg.nodes = 2;
  const Cluster c(cfg);
  const std::vector<int> devices = identity(16);
  AllToAllTraffic t = expected_moe_traffic(c, devices, MoeRouting{512, 256, 8, 0, 0});
  t.message_bytes = 2.0;
  const double scale = 4.0;
  AllToAllOptions o;
  o.scale = scale;

  o.algorithm = &find_all_to_all("direct");
  const FlowSums direct = sums(c, all_to_all_schedule(c, devices, t, o));
  EXPECT_NEAR(direct.bytes, off_diagonal(t.pair_bytes) * scale, 1e-9 * direct.bytes);
  EXPECT_EQ(direct.messages, 0.0);

  o.algorithm = &find_all_to_all("low-latency");
  const FlowSums ll = sums(c, all_to_all_schedule(c, devices, t, o));
  EXPECT_NEAR(ll.bytes, off_diagonal(t.expert_bytes) * scale, 1e-9 * ll.bytes);
  EXPECT_NEAR(ll.messages, ll.bytes / t.message_bytes, 1e-9 * ll.messages);
  EXPECT_GT(ll.bytes, direct.bytes);  // pairs to one rank are sent once each

  o.algorithm = &find_all_to_all("hierarchical");
  const FlowSums hier = sums(c, all_to_all_schedule(c, devices, t, o));
  double node_tokens = 0;
  for (int s = 0; s < 16; ++s) node_tokens += t.node_bytes.at(s, 1 - s / 8);
  EXPECT_NEAR(hier.between_nodes, node_tokens * scale, 1e-9 * hier.between_nodes);
  EXPECT_LT(hier.between_nodes, direct.between_nodes);
  EXPECT_EQ(hier.messages, 0.0);

  // The closed form of each agrees with its routed schedule at the analytic fidelity.
  for (const AllToAllAlgorithm* a : all_to_all_registry()) {
    o.algorithm = a;
    const CommResult closed = all_to_all(c, devices, t, o);
    const CommResult routed = run_schedule(c, all_to_all_schedule(c, devices, t, o), find_fidelity("analytic"));
    EXPECT_NEAR(closed.transfer_ns, routed.transfer_ns, 1e-9 * routed.transfer_ns) << a->name();
  }
}

TEST(AllToAllRegistry, ForwardingRejectsNetworkOnly) {
  AllToAllOptions o;
  o.network_only = true;
  o.algorithm = &hierarchical_all_to_all();
  try {
    check_network_only(o);
    ADD_FAILURE() << "hierarchical accepted network_only";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(),
                 "hierarchical all-to-all forwards over the scale-up fabric: it cannot send every pair over the "
                 "network");
  }
  for (const AllToAllAlgorithm* a : {&direct_all_to_all(), &low_latency_all_to_all()}) {
    o.algorithm = a;
    EXPECT_NO_THROW(check_network_only(o)) << a->name();
  }
}

}  // namespace
}  // namespace moesim::topology
