#include "topology/cluster.h"

#include <string>

namespace moesim::topology {
namespace {

using Vertex = Graph::vertex_descriptor;

Vertex add_vertex(Graph& g, VertexKind kind, int node, int index, std::string name) {
  return boost::add_vertex(VertexProps{kind, node, index, std::move(name)}, g);
}

// A full-duplex link is two directed edges, each with the per-direction bandwidth.
void add_link(Graph& g, Vertex a, Vertex b, double bytes_per_s, double latency_ns) {
  boost::add_edge(a, b, LinkProps{bytes_per_s, latency_ns}, g);
  boost::add_edge(b, a, LinkProps{bytes_per_s, latency_ns}, g);
}

void check_config(const ClusterConfig& c) {
  if (c.nodes < 1) throw TopologyError("cluster.nodes must be at least 1");
  if (c.devices_per_node < 1) throw TopologyError("cluster.devices_per_node must be at least 1");
  if (!(c.scaleup_bytes_per_s > 0) || !(c.nic_bytes_per_s > 0))
    throw TopologyError("cluster link bandwidths must be positive");
  if (!(c.scaleup_efficiency > 0 && c.scaleup_efficiency <= 1) ||
      !(c.nic_efficiency > 0 && c.nic_efficiency <= 1))
    throw TopologyError("cluster link efficiencies must lie in (0, 1]");
}

// hgx: per node, devices on one NVSwitch plane and one NIC per device; NIC i of every node
// hangs off rail leaf i (rail-optimised), and the leaves connect to one spine (non-blocking).
void build_hgx(const ClusterConfig& c, Graph& g) {
  const int per_node = c.devices_per_node;
  std::vector<Vertex> devices;
  devices.reserve(static_cast<std::size_t>(c.nodes) * per_node);
  for (int n = 0; n < c.nodes; ++n)
    for (int i = 0; i < per_node; ++i) {
      const int d = n * per_node + i;
      devices.push_back(add_vertex(g, VertexKind::kDevice, n, d, "gpu" + std::to_string(d)));
    }
  std::vector<Vertex> leaves;
  for (int i = 0; i < per_node; ++i)
    leaves.push_back(add_vertex(g, VertexKind::kLeafSwitch, -1, i, "rail" + std::to_string(i)));
  const Vertex spine = add_vertex(g, VertexKind::kSpineSwitch, -1, 0, "spine");
  for (int n = 0; n < c.nodes; ++n) {
    const Vertex nvs = add_vertex(g, VertexKind::kScaleUpSwitch, n, n, "nvswitch" + std::to_string(n));
    for (int i = 0; i < per_node; ++i) {
      const Vertex dev = devices[static_cast<std::size_t>(n) * per_node + i];
      add_link(g, dev, nvs, c.scaleup_bytes_per_s, c.scaleup_latency_ns / 2);
      const Vertex nic = add_vertex(g, VertexKind::kNic, n, i, "node" + std::to_string(n) + ".nic" + std::to_string(i));
      add_link(g, dev, nic, c.nic_bytes_per_s * 2, 0);  // PCIe Gen5 x16 is not the bottleneck
      add_link(g, nic, leaves[i], c.nic_bytes_per_s, c.nic_latency_ns / 2);
    }
  }
  for (int i = 0; i < per_node; ++i)
    add_link(g, leaves[i], spine, c.nic_bytes_per_s * c.nodes, 0);
}

}  // namespace

std::vector<ClusterPresetInfo> cluster_presets() {
  return {{"hgx", "nodes of 8 GPUs on NVSwitch, one NIC per GPU, rail-optimised leaves under a spine"}};
}

Cluster::Cluster(const ClusterConfig& config) : config_(config) {
  check_config(config_);
  if (config_.preset == "hgx") {
    build_hgx(config_, graph_);
  } else {
    throw TopologyError("unknown cluster preset '" + config_.preset + "' (valid: hgx)");
  }
}

double Cluster::effective_scaleup_bytes_per_s() const {
  return config_.scaleup_bytes_per_s * config_.scaleup_efficiency;
}

double Cluster::effective_nic_bytes_per_s() const {
  return config_.nic_bytes_per_s * config_.nic_efficiency;
}

}  // namespace moesim::topology
