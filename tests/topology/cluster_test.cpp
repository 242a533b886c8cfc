#include "topology/cluster.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "topology/fabric_graph.h"

namespace moesim::topology {
namespace {

ClusterConfig hgx(int nodes) {
  ClusterConfig c;
  c.preset = "hgx";
  c.nodes = nodes;
  return c;
}

std::map<VertexKind, int> count_kinds(const Graph& g) {
  std::map<VertexKind, int> n;
  for (auto [it, end] = boost::vertices(g); it != end; ++it) ++n[g[*it].kind];
  return n;
}

TEST(HgxCluster, TwoNodesHaveExpectedVerticesAndEdges) {
  const Cluster c(hgx(2));
  const Graph& g = graph(c);
  const int nodes = 2, per_node = c.config().devices_per_node, devices = nodes * per_node;
  auto kinds = count_kinds(g);
  EXPECT_EQ(kinds[VertexKind::kDevice], devices);
  EXPECT_EQ(kinds[VertexKind::kScaleUpSwitch], nodes);  // one NVSwitch plane per node
  EXPECT_EQ(kinds[VertexKind::kNic], devices);          // one NIC per device
  EXPECT_EQ(kinds[VertexKind::kLeafSwitch], per_node);  // one rail per local index
  const int spines = c.config().spines;
  EXPECT_EQ(kinds[VertexKind::kSpineSwitch], spines);
  EXPECT_EQ(static_cast<int>(boost::num_vertices(g)), devices + nodes + devices + per_node + spines);
  // Links: device–NVSwitch, device–NIC, NIC–rail leaf per device, plus every leaf to every spine;
  // each full-duplex link is two directed edges.
  const int links = 3 * devices + per_node * spines;
  EXPECT_EQ(static_cast<int>(boost::num_edges(g)), 2 * links);
}

TEST(HgxCluster, EveryLinkIsFullDuplexWithEqualBandwidth) {
  const Cluster c(hgx(2));
  const Graph& g = graph(c);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const auto u = boost::source(*it, g), v = boost::target(*it, g);
    const auto [back, found] = boost::edge(v, u, g);
    ASSERT_TRUE(found) << g[u].name << " -> " << g[v].name;
    EXPECT_DOUBLE_EQ(g[back].bytes_per_s, g[*it].bytes_per_s);
    EXPECT_GT(g[*it].bytes_per_s, 0);
  }
}

TEST(HgxCluster, DevicesConnectToTheirNodesSwitchAndOwnNic) {
  const Cluster c(hgx(2));
  const Graph& g = graph(c);
  for (auto [it, end] = boost::vertices(g); it != end; ++it) {
    const auto& v = g[*it];
    if (v.kind != VertexKind::kDevice) continue;
    EXPECT_EQ(v.node, c.node_of(v.index)) << v.name;
    int switches = 0, nics = 0;
    for (auto [e, eend] = boost::out_edges(*it, g); e != eend; ++e) {
      const auto& w = g[boost::target(*e, g)];
      EXPECT_EQ(w.node, v.node) << v.name << " -> " << w.name;
      if (w.kind == VertexKind::kScaleUpSwitch) {
        ++switches;
        EXPECT_DOUBLE_EQ(g[*e].bytes_per_s, c.config().scaleup_bytes_per_s);
      }
      if (w.kind == VertexKind::kNic) {
        ++nics;
        EXPECT_EQ(w.index, c.local_index(v.index));  // NIC rail = local index
      }
    }
    EXPECT_EQ(switches, 1) << v.name;
    EXPECT_EQ(nics, 1) << v.name;
  }
}

TEST(HgxCluster, NodeOfAndLocalIndexAreNodeMajor) {
  const Cluster c(hgx(3));
  EXPECT_EQ(c.num_devices(), 24);
  EXPECT_EQ(c.num_nodes(), 3);
  for (int d = 0; d < c.num_devices(); ++d) {
    EXPECT_EQ(c.node_of(d) * 8 + c.local_index(d), d);
    EXPECT_GE(c.local_index(d), 0);
    EXPECT_LT(c.local_index(d), 8);
  }
  EXPECT_EQ(c.node_of(11), 1);
  EXPECT_EQ(c.local_index(11), 3);
  EXPECT_TRUE(c.same_scaleup_domain(0, 7));
  EXPECT_FALSE(c.same_scaleup_domain(7, 8));
  EXPECT_TRUE(c.same_scaleup_domain(16, 23));
}

TEST(HgxCluster, EffectiveBandwidthIsLineRateTimesEfficiency) {
  ClusterConfig cfg = hgx(1);
  cfg.scaleup_bytes_per_s = 100e9;
  cfg.scaleup_efficiency = 0.5;
  cfg.nic_bytes_per_s = 40e9;
  cfg.nic_efficiency = 0.25;
  const Cluster c(cfg);
  EXPECT_DOUBLE_EQ(c.effective_scaleup_bytes_per_s(), 50e9);
  EXPECT_DOUBLE_EQ(c.effective_nic_bytes_per_s(), 10e9);
}

TEST(HgxCluster, UnknownPresetThrowsListingValidOnes) {
  ClusterConfig cfg = hgx(1);
  cfg.preset = "dragonfly";
  try {
    Cluster c(cfg);
    FAIL() << "expected TopologyError";
  } catch (const TopologyError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dragonfly"), std::string::npos) << msg;
    ASSERT_FALSE(cluster_presets().empty());
    for (const auto& preset : cluster_presets()) EXPECT_NE(msg.find(preset.name), std::string::npos) << msg;
  }
}

TEST(HgxCluster, BadSizesThrow) {
  ClusterConfig cfg = hgx(0);
  EXPECT_THROW(Cluster{cfg}, TopologyError);
  cfg = hgx(1);
  cfg.nic_efficiency = 1.5;
  EXPECT_THROW(Cluster{cfg}, TopologyError);
  cfg = hgx(1);
  cfg.scaleup_bytes_per_s = 0;
  EXPECT_THROW(Cluster{cfg}, TopologyError);
}

}  // namespace
}  // namespace moesim::topology
