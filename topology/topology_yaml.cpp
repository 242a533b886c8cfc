#include "topology/topology_yaml.h"

#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "models/units.h"
#include "topology/fabric_builder.h"

namespace moesim::topology {
namespace {

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& n, const std::string& what) const {
    const YAML::Mark m = n.Mark();
    throw TopologyError(source_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " + what);
  }

  void keys(const YAML::Node& map, std::initializer_list<std::string_view> valid, std::string_view where) const {
    if (!map.IsMap()) fail(map, std::string(where) + ": expected a mapping");
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      bool ok = false;
      std::string list;
      for (auto v : valid) ok = ok || v == k, list += (list.empty() ? "" : ", ") + std::string(v);
      if (!ok) fail(kv.first, std::string(where) + ": unknown key '" + k + "' (valid keys: " + list + ")");
    }
  }

  const YAML::Node require(const YAML::Node& map, const char* key, std::string_view where) const {
    const YAML::Node n = map[key];
    if (!n) fail(map, std::string(where) + ": missing '" + key + "'");
    return n;
  }

  // A value with a unit (models/units.h); fails at the value with the parser's message.
  double quantity(const YAML::Node& n, double (*parse)(std::string_view)) const {
    const std::string s = n.as<std::string>();
    try {
      return parse(s);
    } catch (const models::UnitError& e) {
      fail(n, e.what());
    }
  }

 private:
  std::string source_;
};

VertexKind parse_kind(const Reader& r, const YAML::Node& n) {
  const std::string s = n.as<std::string>();
  for (VertexKind k : {VertexKind::kDevice, VertexKind::kScaleUpSwitch, VertexKind::kNic, VertexKind::kLeafSwitch,
                       VertexKind::kSpineSwitch})
    if (to_string(k) == s) return k;
  r.fail(n, "unknown node kind '" + s + "' (valid: device, scaleup_switch, nic, leaf, spine)");
}

LinkClass parse_class(const Reader& r, const YAML::Node& n) {
  const std::string s = n.as<std::string>();
  for (LinkClass c : {LinkClass::kScaleUp, LinkClass::kHost, LinkClass::kScaleOut, LinkClass::kFabric})
    if (to_string(c) == s) return c;
  r.fail(n, "unknown link class '" + s + "' (valid: scale-up, host, scale-out, fabric)");
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

Cluster load_topology_yaml(std::string_view text, const std::string& source) {
  const Reader r(source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw TopologyError(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                        ": " + e.msg);
  }
  r.keys(root, {"name", "nodes", "links"}, "topology");
  const YAML::Node nodes = r.require(root, "nodes", "topology"), links = r.require(root, "links", "topology");
  if (!nodes.IsSequence() || nodes.size() == 0) r.fail(nodes, "nodes: expected a non-empty list");
  if (!links.IsSequence()) r.fail(links, "links: expected a list");
  Graph g;
  std::map<std::string, Vertex> by_name;
  std::vector<YAML::Node> listed;  // each vertex's entry, for errors
  ClusterConfig cfg;
  cfg.preset = "custom";
  std::map<int, int> per_domain;
  try {
    for (const YAML::Node& n : nodes) {
      r.keys(n, {"name", "kind", "domain"}, "node");
      const std::string name = r.require(n, "name", "node").as<std::string>();
      if (by_name.count(name)) r.fail(n["name"], "duplicate node name '" + name + "'");
      const VertexKind kind = parse_kind(r, r.require(n, "kind", "node"));
      int domain = -1;
      if (n["domain"]) domain = n["domain"].as<int>();
      if (kind == VertexKind::kDevice && domain < 0) r.fail(n, "device '" + name + "' needs a domain >= 0");
      if (kind == VertexKind::kDevice) ++per_domain[domain];
      by_name[name] = add_vertex(g, kind, domain, -1, name);
      listed.push_back(n);
    }
    for (const YAML::Node& l : links) {
      r.keys(l, {"from", "to", "bandwidth", "latency", "efficiency", "class", "duplex"}, "link");
      Vertex ends[2];
      const char* keys[2] = {"from", "to"};
      for (int i = 0; i < 2; ++i) {
        const YAML::Node e = r.require(l, keys[i], "link");
        const auto it = by_name.find(e.as<std::string>());
        if (it == by_name.end()) r.fail(e, "link end '" + e.as<std::string>() + "' is not a listed node");
        ends[i] = it->second;
      }
      LinkProps p;
      p.bytes_per_s = r.quantity(r.require(l, "bandwidth", "link"), models::parse_bandwidth_bytes_per_s);
      if (!(p.bytes_per_s > 0))
        r.fail(l["bandwidth"], "link '" + g[ends[0]].name + "' -> '" + g[ends[1]].name +
                                   "': bandwidth must be positive, got '" + l["bandwidth"].as<std::string>() + "'");
      if (l["latency"]) p.latency_ns = r.quantity(l["latency"], models::parse_duration_ns);
      if (l["efficiency"]) {
        p.efficiency = l["efficiency"].as<double>();
        if (!(p.efficiency > 0 && p.efficiency <= 1)) r.fail(l["efficiency"], "efficiency must lie in (0, 1]");
      }
      p.cls = l["class"] ? parse_class(r, l["class"]) : infer_class(g[ends[0]].kind, g[ends[1]].kind);
      if (!l["duplex"] || l["duplex"].as<bool>()) {
        add_link(g, ends[0], ends[1], p);
      } else {
        p.id = static_cast<int>(boost::num_edges(g));
        boost::add_edge(ends[0], ends[1], p, g);
      }
    }
  } catch (const YAML::Exception& e) {
    throw TopologyError(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                        ": " + e.msg);
  }
  cfg.nodes = static_cast<int>(per_domain.size());
  cfg.devices_per_node = 0;
  for (const auto& [d, count] : per_domain) cfg.devices_per_node = std::max(cfg.devices_per_node, count);
  if (cfg.devices_per_node == 0) r.fail(nodes, "nodes: no device listed");
  // Scale-up domains numbered densely, in the order of the numbers given.
  std::map<int, int> dense;
  for (const auto& [d, count] : per_domain) dense.emplace(d, static_cast<int>(dense.size()));
  for (auto [it, end] = boost::vertices(g); it != end; ++it)
    if (g[*it].kind == VertexKind::kDevice) g[*it].node = dense.at(g[*it].node);
  if (const Vertex v = unreachable_vertex(g); v != boost::graph_traits<Graph>::null_vertex())
    r.fail(listed[v], "topology is disconnected: '" + g[v].name + "' cannot reach '" + g[0].name + "'");
  if (const auto [from, to] = one_way_gap(g); from != to)
    r.fail(listed[from], "device '" + g[from].name + "' has no path to device '" + g[to].name +
                             "' (a link with duplex: false runs one way only)");
  summary_figures(g, cfg);
  try {
    return Cluster(std::move(g), cfg);
  } catch (const TopologyError& e) {
    throw TopologyError(source + ": " + e.what());
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
