// Cluster presets, their registry and validation, YAML fabrics, DOT output.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <sstream>
#include <string>

#include "topology/cluster.h"
#include "topology/fabric_graph.h"
#include "topology/graphviz.h"
#include "topology/routing.h"
#include "topology/topology_yaml.h"

namespace moesim::topology {
namespace {

std::string error_of(auto&& f) { return moesim::testing::thrown_message<TopologyError>(f); }

int count(const Graph& g, VertexKind k) {
  int n = 0;
  for (auto [it, end] = boost::vertices(g); it != end; ++it) n += g[*it].kind == k;
  return n;
}

TEST(ClusterPresets, RegistryListsSixPresetsAndEachBuilds) {
  ASSERT_EQ(cluster_presets().size(), 6u);
  for (const auto& p : cluster_presets()) {
    ClusterConfig cfg = cluster_preset_defaults(p.name);
    EXPECT_EQ(cfg.preset, p.name);
    cfg.nodes = 2;
    const Cluster c(cfg);
    EXPECT_EQ(c.num_devices(), 2 * cfg.devices_per_node) << p.name;
    EXPECT_FALSE(summary(c).empty());
  }
}

TEST(ClusterPresets, Nvl72IsOneNvlinkDomainPerRack) {
  ClusterConfig cfg = cluster_preset_defaults("nvl72");
  cfg.nodes = 2;
  const Cluster c(cfg);
  EXPECT_EQ(c.num_devices(), 144);
  EXPECT_TRUE(c.same_scaleup_domain(0, 71));
  EXPECT_FALSE(c.same_scaleup_domain(71, 72));
  EXPECT_DOUBLE_EQ(cfg.scaleup_bytes_per_s, 900e9);
  EXPECT_EQ(count(graph(c), VertexKind::kNic), 144);
}

TEST(ClusterPresets, CloudMatrix384HasBoardsUnderOneUbDomain) {
  const Cluster c(cluster_preset_defaults("cloudmatrix384"));
  EXPECT_EQ(c.num_devices(), 384);
  EXPECT_TRUE(c.same_scaleup_domain(0, 383));
  EXPECT_EQ(count(graph(c), VertexKind::kScaleUpSwitch), 48 + 1);  // L1 per board + L2
  EXPECT_DOUBLE_EQ(c.config().scaleup_bytes_per_s, 392e9);
}

TEST(ClusterPresets, GenericOversubscriptionShrinksSpineLinks) {
  ClusterConfig cfg = cluster_preset_defaults("generic");
  cfg.nodes = 4;
  cfg.oversubscription = 4;
  const Cluster c(cfg);
  ASSERT_EQ(c.leaves().size(), 4u);  // one top-of-rack leaf per node
  double up = 0;
  for (const int id : c.leaves()[0].up) up += c.link_props(id).bytes_per_s;
  EXPECT_DOUBLE_EQ(up, cfg.devices_per_node * cfg.nic_bytes_per_s / 4);
}

TEST(ClusterPresets, UnknownPresetNamesTheValidOnes) {
  const std::string msg = error_of([] { cluster_preset_defaults("dragonfly"); });
  for (const auto& p : cluster_presets()) EXPECT_NE(msg.find(p.name), std::string::npos) << msg;
  EXPECT_EQ(msg, "unknown cluster preset 'dragonfly' (valid: hgx, nvl72, xgmi, hccs, cloudmatrix384, generic)");
  ClusterConfig cfg = cluster_preset_defaults("hgx");
  cfg.preset = "torus";
  EXPECT_EQ(error_of([&] { Cluster{cfg}; }),
            "unknown cluster preset 'torus' (valid: hgx, nvl72, xgmi, hccs, cloudmatrix384, generic)");
}

const char* kTwoBoxes = R"(name: two-boxes
nodes:
  - {name: gpu0, kind: device, domain: 0}
  - {name: gpu1, kind: device, domain: 0}
  - {name: gpu2, kind: device, domain: 1}
  - {name: sw0, kind: scaleup_switch}
  - {name: tor, kind: leaf}
links:
  - {from: gpu0, to: sw0, bandwidth: 200GB/s, latency: 1us}
  - {from: gpu1, to: sw0, bandwidth: 200GB/s, latency: 1us}
  - {from: gpu0, to: tor, bandwidth: 400Gbps, latency: 2us, efficiency: 0.9}
  - {from: gpu2, to: tor, bandwidth: 400Gbps, latency: 2us}
)";

TEST(TopologyYaml, LoadsNodesAndLinks) {
  const Cluster c = load_topology_yaml(kTwoBoxes, "boxes.yaml");
  EXPECT_EQ(c.num_devices(), 3);
  EXPECT_EQ(c.num_nodes(), 2);
  EXPECT_EQ(c.num_links(), 8);
  EXPECT_FALSE(c.regular());
  EXPECT_TRUE(c.same_scaleup_domain(0, 1));
  // gpu0 -> gpu1 stays on the scale-up switch; gpu0 -> gpu2 goes through the leaf.
  const LinkProps& first = c.link_props(0);
  EXPECT_EQ(first.cls, LinkClass::kScaleUp);
  EXPECT_DOUBLE_EQ(c.link_props(4).bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(c.link_capacity(4), 45e9);
  std::ostringstream dot;
  write_dot(c, dot);
  EXPECT_NE(dot.str().find("gpu2"), std::string::npos);
  EXPECT_NE(dot.str().find("50 GB/s"), std::string::npos);
}

TEST(TopologyYaml, ErrorsNameFileLineAndColumn) {
  std::string bad = kTwoBoxes;
  bad.replace(bad.find("latency: 2us}\n"), 14, "latency: 2 parsecs}\n");
  EXPECT_EQ(error_of([&] { load_topology_yaml(bad, "b.yaml"); }),
            "b.yaml:12:56: links[3].latency: expected a duration with a unit (ns, us, ms, s, min, h), got '2 parsecs'");
  EXPECT_NE(error_of([] { load_topology_yaml("nodes: []\nlinks: []\n", "e.yaml"); }).find("e.yaml:1:8"),
            std::string::npos);
  std::string unknown = kTwoBoxes;
  unknown.replace(unknown.find("domain: 1}"), 10, "domian: 1}");
  EXPECT_EQ(error_of([&] { load_topology_yaml(unknown, "u.yaml"); }),
            "u.yaml:5:32: nodes[2].domian: unknown key 'domian'; did you mean 'domain'?");
}

TEST(TopologyYaml, RefusesZeroBandwidthAndDisconnectedFabrics) {
  std::string zero = kTwoBoxes;
  zero.replace(zero.find("bandwidth: 400Gbps, latency: 2us}"), 18, "bandwidth: 0Gbps");
  EXPECT_EQ(error_of([&] { load_topology_yaml(zero, "z.yaml"); }),
            "z.yaml:12:38: links[3].bandwidth: expected a bandwidth > 0 on link 'gpu2' -> 'tor', got '0Gbps'");
  std::string island = kTwoBoxes;
  island += "  - {from: tor, to: tor, bandwidth: 1GB/s}\n";
  island.replace(island.find("  - {name: tor"), 0, "  - {name: lonely, kind: spine}\n");
  EXPECT_EQ(error_of([&] { load_topology_yaml(island, "i.yaml"); }),
            "i.yaml:7:5: topology is disconnected: 'lonely' cannot reach 'gpu0'");
  std::string one_way = kTwoBoxes;
  one_way.replace(one_way.find("latency: 2us}"), 13, "latency: 2us, duplex: false}");
  EXPECT_EQ(error_of([&] { load_topology_yaml(one_way, "o.yaml"); }),
            "o.yaml:3:5: device 'gpu0' has no path to device 'gpu2' (a link with duplex: false runs one way only)");
}

TEST(TopologyYaml, DomainsAreNumberedDenselyAndCopiesKeepTheirLinks) {
  std::string sparse = kTwoBoxes;
  sparse.replace(sparse.find("domain: 1}"), 10, "domain: 7}");
  Cluster c = [&] {
    const Cluster loaded = load_topology_yaml(sparse, "s.yaml");
    return Cluster(loaded);  // a copy that outlives the original
  }();
  EXPECT_EQ(c.num_nodes(), 2);
  EXPECT_EQ(c.node_of(2), 1);
  // Link ids still name the same links in a copy and after a move.
  const Cluster moved = std::move(c);
  EXPECT_EQ(moved.link_name(4), "gpu0 -> tor (scale-out)");
  EXPECT_EQ(moved.link_name(6), "gpu2 -> tor (scale-out)");
  EXPECT_DOUBLE_EQ(moved.link_capacity(4), 45e9);
  const Cluster copy = moved;
  for (int l = 0; l < moved.num_links(); ++l) EXPECT_EQ(copy.link_name(l), moved.link_name(l));
  EXPECT_EQ(copy.route(0, 2).hops.size(), 2u);
  EXPECT_EQ(&copy.fabric(), &moved.fabric());  // the graph is shared, not copied
}

TEST(TopologyYaml, AnotherConfigKeepsTheFabric) {
  const Cluster loaded = load_topology_yaml(kTwoBoxes, "boxes.yaml");
  ClusterConfig cfg = loaded.config();
  cfg.nic_messages_per_s = 1e6;
  const Cluster c = loaded.with_config(cfg);
  EXPECT_DOUBLE_EQ(c.config().nic_messages_per_s, 1e6);
  EXPECT_EQ(&c.fabric(), &loaded.fabric());
  EXPECT_NE(&c.route_cache(), &loaded.route_cache());
  EXPECT_EQ(c.num_links(), loaded.num_links());
  for (int l = 0; l < c.num_links(); ++l) EXPECT_EQ(c.link_name(l), loaded.link_name(l));
  EXPECT_EQ(c.route(0, 2).hops.size(), 2u);
}

}  // namespace
}  // namespace moesim::topology
