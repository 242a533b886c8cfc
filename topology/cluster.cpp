#include "topology/cluster.h"

#include <queue>
#include <string>
#include <utility>

#include "topology/fabric_builder.h"
#include "topology/fabric_graph.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

void check_config(const ClusterConfig& c) {
  if (c.nodes < 1) throw TopologyError("cluster.nodes must be at least 1");
  if (c.devices_per_node < 1) throw TopologyError("cluster.devices_per_node must be at least 1");
  if (std::int64_t{c.nodes} * c.devices_per_node > kMaxClusterDevices)
    throw TopologyError("cluster of " + std::to_string(std::int64_t{c.nodes} * c.devices_per_node) +
                        " devices exceeds the limit of " + std::to_string(kMaxClusterDevices));
  if (!(c.scaleup_bytes_per_s > 0) || !(c.nic_bytes_per_s > 0))
    throw TopologyError("cluster link bandwidths must be positive");
  if (!(c.scaleup_efficiency > 0 && c.scaleup_efficiency <= 1) || !(c.nic_efficiency > 0 && c.nic_efficiency <= 1))
    throw TopologyError("cluster link efficiencies must lie in (0, 1]");
  if (!(c.oversubscription >= 1)) throw TopologyError("cluster.oversubscription must be at least 1");
  if (c.spines < 1) throw TopologyError("cluster.spines must be at least 1");
  if (c.rails < -1) throw TopologyError("cluster.rails must be 0 (top of rack) or a rail count");
  if (c.devices_per_board < 0 || (c.devices_per_board > 0 && c.devices_per_node % c.devices_per_board != 0))
    throw TopologyError("cluster.devices_per_board must divide devices_per_node");
  if (!(c.nic_messages_per_s > 0)) throw TopologyError("cluster.nic_messages_per_s must be positive");
  std::vector<char> grouped(static_cast<std::size_t>(c.nodes), 0);
  for (const auto& g : c.node_groups) {
    if (g.first_node < 0 || g.nodes < 1 || g.first_node + g.nodes > c.nodes)
      throw TopologyError("a node group (nodes " + std::to_string(g.first_node) + " to " +
                          std::to_string(g.first_node + g.nodes - 1) + ") lies outside the cluster's " +
                          std::to_string(c.nodes) + " nodes");
    if (!(g.scaleup_bytes_per_s > 0) || !(g.nic_bytes_per_s > 0))
      throw TopologyError("a node group's link bandwidths must be positive");
    for (int n = g.first_node; n < g.first_node + g.nodes; ++n) {
      if (grouped[static_cast<std::size_t>(n)]) throw TopologyError("node groups overlap at node " + std::to_string(n));
      grouped[static_cast<std::size_t>(n)] = 1;
    }
  }
}

// Zero-bandwidth links and vertices that no path reaches make a fabric unusable.
void check_graph(const Graph& g) {
  if (boost::num_vertices(g) == 0) throw TopologyError("topology has no vertices");
  for (auto [it, end] = boost::edges(g); it != end; ++it)
    if (!(g[*it].bytes_per_s > 0))
      throw TopologyError("link " + g[boost::source(*it, g)].name + " -> " + g[boost::target(*it, g)].name +
                          " has zero bandwidth");
  std::vector<char> seen(boost::num_vertices(g), 0);
  std::queue<Vertex> q;
  q.push(0);
  seen[0] = 1;
  while (!q.empty()) {
    const Vertex v = q.front();
    q.pop();
    auto visit = [&](Vertex w) {
      if (!seen[w]) seen[w] = 1, q.push(w);
    };
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) visit(boost::target(*e, g));
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) visit(boost::source(*e, g));
  }
  for (auto [it, end] = boost::vertices(g); it != end; ++it)
    if (!seen[*it])
      throw TopologyError("topology is disconnected: '" + g[*it].name + "' cannot reach '" + g[0].name + "'");
}

}  // namespace

std::string_view to_string(VertexKind k) {
  switch (k) {
    case VertexKind::kDevice: return "device";
    case VertexKind::kScaleUpSwitch: return "scaleup_switch";
    case VertexKind::kNic: return "nic";
    case VertexKind::kLeafSwitch: return "leaf";
    case VertexKind::kSpineSwitch: return "spine";
  }
  return "?";
}

std::string_view to_string(LinkClass c) {
  switch (c) {
    case LinkClass::kScaleUp: return "scale-up";
    case LinkClass::kHost: return "host";
    case LinkClass::kScaleOut: return "scale-out";
    case LinkClass::kFabric: return "fabric";
  }
  return "?";
}

Cluster::Cluster(const ClusterConfig& config) : config_(config) {
  check_config(config_);
  FabricGraph fabric;
  FabricBuilder(*this, fabric.graph).build_preset();
  index_graph(std::move(fabric));
}

Cluster::Cluster(FabricGraph fabric, ClusterConfig config) : config_(std::move(config)) {
  index_graph(std::move(fabric));
}

Cluster Cluster::with_config(ClusterConfig config) const {
  Cluster c(*this);
  c.config_ = std::move(config);
  c.routes_ = std::make_shared<RouteCache>(num_devices());
  return c;
}

// Builders number links in creation order (add_link); ids must be 0..E-1, each once. The graph
// is frozen here: devices get their ids, links their edges, and the cluster keeps a copy of
// each link's properties for lookups that need no Boost. Edge descriptors point into the
// graph's own storage, so they are taken once the graph has reached its final place.
void Cluster::index_graph(FabricGraph built) {
  const auto owned = std::make_shared<FabricGraph>(std::move(built));
  FabricGraph& fabric = *owned;
  Graph& g = fabric.graph;
  check_graph(g);
  fabric.links.assign(boost::num_edges(g), Edge{});
  link_props_.assign(fabric.links.size(), LinkProps{});
  std::vector<char> used(fabric.links.size(), 0);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const int id = g[*it].id;
    if (id < 0 || id >= static_cast<int>(fabric.links.size()) || used[static_cast<std::size_t>(id)])
      throw TopologyError("internal: link ids are not 0..E-1");
    used[static_cast<std::size_t>(id)] = 1;
    fabric.links[static_cast<std::size_t>(id)] = *it;
    link_props_[static_cast<std::size_t>(id)] = g[*it];
  }
  fabric.devices.clear();
  device_node_.clear();
  for (auto [it, end] = boost::vertices(g); it != end; ++it)
    if (g[*it].kind == VertexKind::kDevice) {
      fabric.devices.push_back(*it);
      device_node_.push_back(g[*it].node);
      g[*it].index = static_cast<int>(fabric.devices.size()) - 1;
    }
  if (fabric.devices.empty()) throw TopologyError("topology has no devices");
  num_nodes_ = 0;
  std::vector<int> count;
  device_local_.assign(device_node_.size(), 0);
  for (std::size_t d = 0; d < device_node_.size(); ++d) {
    const int n = device_node_[d];
    if (n < 0) throw TopologyError("device '" + g[fabric.devices[d]].name + "' has no node");
    if (n >= static_cast<int>(count.size())) count.resize(static_cast<std::size_t>(n) + 1, 0);
    device_local_[d] = count[static_cast<std::size_t>(n)]++;
    num_nodes_ = std::max(num_nodes_, n + 1);
  }
  fabric_ = owned;
  routes_ = std::make_shared<RouteCache>(num_devices());
}

const Route& Cluster::route(int src_device, int dst_device) const {
  return routes_->route(*this, src_device, dst_device);
}

const std::vector<Route>& Cluster::routes_from(int src_device) const { return routes_->routes_from(*this, src_device); }

int Cluster::device_at(int node, int local) const {
  if (regular()) {
    const int per = config_.devices_per_node;
    if (node < 0 || node >= num_nodes_ || local < 0 || local >= per) return -1;
    return node * per + local;
  }
  for (int d = 0; d < num_devices(); ++d)
    if (node_of(d) == node && local_index(d) == local) return d;
  return -1;
}

double Cluster::link_capacity(int id) const {
  const LinkProps& p = link_props(id);
  return p.bytes_per_s * p.efficiency;
}

std::string Cluster::link_name(int id) const {
  const Graph& g = graph(*this);
  const Edge e = link_edge(*this, id);
  return g[boost::source(e, g)].name + " -> " + g[boost::target(e, g)].name + " (" +
         std::string(to_string(link_props(id).cls)) + ")";
}

double Cluster::effective_scaleup_bytes_per_s() const {
  return config_.scaleup_bytes_per_s * config_.scaleup_efficiency;
}

double Cluster::effective_nic_bytes_per_s() const { return config_.nic_bytes_per_s * config_.nic_efficiency; }

double Cluster::effective_nic_bytes_per_s(int device) const {
  if (regular()) return link_capacity(device_links(device).nic_out);
  return effective_nic_bytes_per_s();
}

namespace {

const ClusterConfig::NodeGroup* group_of(const ClusterConfig& c, int node) {
  for (const auto& g : c.node_groups)
    if (node >= g.first_node && node < g.first_node + g.nodes) return &g;
  return nullptr;
}

}  // namespace

double ClusterConfig::node_scaleup_bytes_per_s(int node) const {
  const NodeGroup* g = group_of(*this, node);
  return g ? g->scaleup_bytes_per_s : scaleup_bytes_per_s;
}

double ClusterConfig::node_nic_bytes_per_s(int node) const {
  const NodeGroup* g = group_of(*this, node);
  return g ? g->nic_bytes_per_s : nic_bytes_per_s;
}

}  // namespace moesim::topology
