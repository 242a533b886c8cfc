#include "topology/topology_yaml.h"

#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "models/yaml_reader.h"
#include "topology/fabric_builder.h"
#include "topology/fabric_graph.h"

namespace moesim::topology {
namespace {

using models::Field;
using models::MapReader;
using models::YamlNode;

VertexKind parse_kind(const Field& f) {
  const std::string s = models::as_choice(f, "node kind", {"device", "scaleup_switch", "nic", "leaf", "spine"});
  for (VertexKind k : {VertexKind::kDevice, VertexKind::kScaleUpSwitch, VertexKind::kNic, VertexKind::kLeafSwitch,
                       VertexKind::kSpineSwitch})
    if (to_string(k) == s) return k;
  f.fail("unknown node kind '" + s + "'");  // as_choice lists the same names
}

LinkClass parse_class(const Field& f) {
  const std::string s = models::as_choice(f, "link class", {"scale-up", "host", "scale-out", "fabric"});
  for (LinkClass c : {LinkClass::kScaleUp, LinkClass::kHost, LinkClass::kScaleOut, LinkClass::kFabric})
    if (to_string(c) == s) return c;
  f.fail("unknown link class '" + s + "'");  // as_choice lists the same names
}

// The entries of a list (a non-empty one when `non_empty`), each as a Field named "<list>[i]".
std::vector<Field> list_items(const Field& f, bool non_empty) {
  const std::string expected = non_empty ? "a non-empty list" : "a list";
  if (f.node->kind != YamlNode::Kind::kList) f.fail("expected " + expected + ", got " + models::describe(*f.node));
  if (non_empty && f.node->items.empty()) f.fail("expected " + expected);
  std::vector<Field> items;
  for (std::size_t i = 0; i < f.node->items.size(); ++i)
    items.push_back(Field{&f.node->items[i], &f.node->items[i].loc, f.path + "[" + std::to_string(i) + "]"});
  return items;
}

LinkClass infer_class(VertexKind a, VertexKind b) {
  auto either = [&](VertexKind k) { return a == k || b == k; };
  if (either(VertexKind::kScaleUpSwitch) || (a == VertexKind::kDevice && b == VertexKind::kDevice))
    return LinkClass::kScaleUp;
  if (either(VertexKind::kDevice) && either(VertexKind::kNic)) return LinkClass::kHost;
  if (either(VertexKind::kLeafSwitch) && either(VertexKind::kSpineSwitch)) return LinkClass::kFabric;
  return LinkClass::kScaleOut;
}

// A vertex that no link path (either direction) joins to vertex 0, or null_vertex().
Vertex unreachable_vertex(const Graph& g) {
  std::vector<char> seen(boost::num_vertices(g), 0);
  std::vector<Vertex> todo{0};
  seen[0] = 1;
  while (!todo.empty()) {
    const Vertex v = todo.back();
    todo.pop_back();
    auto visit = [&](Vertex w) {
      if (!seen[w]) seen[w] = 1, todo.push_back(w);
    };
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) visit(boost::target(*e, g));
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) visit(boost::source(*e, g));
  }
  for (Vertex v = 0; v < boost::num_vertices(g); ++v)
    if (!seen[v]) return v;
  return boost::graph_traits<Graph>::null_vertex();
}

// A pair of devices without a directed path from the first to the second ({0, 0} if none).
std::pair<Vertex, Vertex> one_way_gap(const Graph& g) {
  std::vector<Vertex> devices;
  for (auto [it, end] = boost::vertices(g); it != end; ++it)
    if (g[*it].kind == VertexKind::kDevice) devices.push_back(*it);
  std::vector<char> seen(boost::num_vertices(g));
  for (const Vertex from : devices) {
    std::fill(seen.begin(), seen.end(), 0);
    std::vector<Vertex> todo{from};
    seen[from] = 1;
    while (!todo.empty()) {
      const Vertex v = todo.back();
      todo.pop_back();
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
        if (!seen[boost::target(*e, g)]) seen[boost::target(*e, g)] = 1, todo.push_back(boost::target(*e, g));
    }
    for (const Vertex to : devices)
      if (!seen[to]) return {from, to};
  }
  return {0, 0};
}

// The per-device figures a custom fabric's ClusterConfig reports (used where one per-device
// bandwidth stands for the fabric): the slowest scale-up link leaving a device, and the slowest
// NIC uplink (or, without NICs, the slowest other link leaving a device).
void summary_figures(const Graph& g, ClusterConfig& cfg) {
  const LinkProps* up = nullptr;
  const LinkProps* out = nullptr;
  auto slower = [](const LinkProps* a, const LinkProps& b) {
    return !a || b.bytes_per_s * b.efficiency < a->bytes_per_s * a->efficiency ? &b : a;
  };
  bool nics = false;
  for (auto [it, end] = boost::vertices(g); it != end; ++it) nics = nics || g[*it].kind == VertexKind::kNic;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const LinkProps& p = g[*it];
    const VertexKind from = g[boost::source(*it, g)].kind, to = g[boost::target(*it, g)].kind;
    if (from == VertexKind::kDevice && p.cls == LinkClass::kScaleUp) up = slower(up, p);
    if (p.cls != LinkClass::kScaleUp &&
        (nics ? from == VertexKind::kNic && to != VertexKind::kDevice : from == VertexKind::kDevice))
      out = slower(out, p);
  }
  if (up) cfg.scaleup_bytes_per_s = up->bytes_per_s, cfg.scaleup_efficiency = up->efficiency;
  if (out) cfg.nic_bytes_per_s = out->bytes_per_s, cfg.nic_efficiency = out->efficiency;
}

}  // namespace

namespace {

Cluster read_topology(const YamlNode& root) {
  const MapReader top(root, "", {"name", "nodes", "links"});
  const Field nodes = top.require("nodes");
  const std::vector<Field> node_items = list_items(nodes, true);
  const std::vector<Field> link_items = list_items(top.require("links"), false);
  FabricGraph fabric;
  Graph& g = fabric.graph;
  std::map<std::string, Vertex> by_name;
  std::vector<const YamlNode*> listed;  // each vertex's entry, for errors
  ClusterConfig cfg;
  cfg.preset = "custom";
  std::map<int, int> per_domain;
  for (const Field& item : node_items) {
    const MapReader n(*item.node, item.path, {"name", "kind", "domain"});
    const Field name_field = n.require("name");
    const std::string name = models::as_string(name_field);
    if (by_name.count(name)) name_field.fail("duplicate node name '" + name + "'");
    const VertexKind kind = parse_kind(n.require("kind"));
    int domain = -1;
    if (const auto f = n.get("domain")) domain = models::as_int(*f, 0);
    if (kind == VertexKind::kDevice && domain < 0) n.fail("device '" + name + "' needs a domain >= 0");
    if (kind == VertexKind::kDevice) ++per_domain[domain];
    by_name[name] = add_vertex(g, kind, domain, -1, name);
    listed.push_back(item.node);
  }
  for (const Field& item : link_items) {
    const MapReader l(*item.node, item.path, {"from", "to", "bandwidth", "latency", "efficiency", "class", "duplex"});
    Vertex ends[2];
    const char* keys[2] = {"from", "to"};
    for (int i = 0; i < 2; ++i) {
      const Field e = l.require(keys[i]);
      const std::string name = models::as_string(e);
      const auto it = by_name.find(name);
      if (it == by_name.end()) e.fail("link end '" + name + "' is not a listed node");
      ends[i] = it->second;
    }
    LinkProps p;
    const Field bandwidth = l.require("bandwidth");
    p.bytes_per_s = models::as_bandwidth_bytes_per_s(bandwidth);
    if (!(p.bytes_per_s > 0))
      bandwidth.fail("expected a bandwidth > 0 on link '" + g[ends[0]].name + "' -> '" + g[ends[1]].name + "', got '" +
                     bandwidth.node->scalar + "'");
    if (const auto f = l.get("latency")) p.latency_ns = models::as_duration_ns(*f);
    if (const auto f = l.get("efficiency")) p.efficiency = models::as_fraction(*f);
    const auto cls = l.get("class");
    p.cls = cls ? parse_class(*cls) : infer_class(g[ends[0]].kind, g[ends[1]].kind);
    const auto duplex = l.get("duplex");
    if (!duplex || models::as_bool(*duplex)) {
      add_link(g, ends[0], ends[1], p);
    } else {
      p.id = static_cast<int>(boost::num_edges(g));
      boost::add_edge(ends[0], ends[1], p, g);
    }
  }
  cfg.nodes = static_cast<int>(per_domain.size());
  cfg.devices_per_node = 0;
  for (const auto& [d, count] : per_domain) cfg.devices_per_node = std::max(cfg.devices_per_node, count);
  if (cfg.devices_per_node == 0) nodes.fail("no device listed");
  // Scale-up domains numbered densely, in the order of the numbers given.
  std::map<int, int> dense;
  for (const auto& [d, count] : per_domain) dense.emplace(d, static_cast<int>(dense.size()));
  for (auto [it, end] = boost::vertices(g); it != end; ++it)
    if (g[*it].kind == VertexKind::kDevice) g[*it].node = dense.at(g[*it].node);
  if (const Vertex v = unreachable_vertex(g); v != boost::graph_traits<Graph>::null_vertex())
    models::fail_at(listed[v]->loc, "",
                    "topology is disconnected: '" + g[v].name + "' cannot reach '" + g[0].name + "'");
  if (const auto [from, to] = one_way_gap(g); from != to)
    models::fail_at(listed[from]->loc, "",
                    "device '" + g[from].name + "' has no path to device '" + g[to].name +
                        "' (a link with duplex: false runs one way only)");
  summary_figures(g, cfg);
  try {
    return Cluster(std::move(fabric), cfg);
  } catch (const TopologyError& e) {
    throw TopologyError(root.loc.origin + ": " + e.what());
  }
}

}  // namespace

Cluster load_topology_yaml(std::string_view text, const std::string& source) {
  try {
    return read_topology(models::parse_yaml(text, source, true));
  } catch (const models::YamlError& e) {
    throw TopologyError(e.what(), e.position());
  }
}

Cluster load_topology_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TopologyError("cannot read topology file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return load_topology_yaml(ss.str(), path);
}

}  // namespace moesim::topology
