// The preset fabrics. Sources for every figure are in docs/topology.md ("Presets").
#include <algorithm>
#include <string>

#include "topology/cluster.h"
#include "topology/fabric_builder.h"

namespace moesim::topology {
namespace {

struct PresetEntry {
  ClusterPresetInfo info;
  ClusterConfig (*defaults)();
};

// HGX H800: 8 GPUs on NVSwitch (NVLink 400 GB/s bidirectional), one ConnectX-7 400 Gb/s NIC per
// GPU, rail-optimised two-tier fat-tree (NIC i of every node on rail leaf i). Efficiencies are
// the DeepEP fit of docs/topology.md.
ClusterConfig hgx() {
  ClusterConfig c;
  c.preset = "hgx";
  c.rails = 8;
  return c;
}

// GB200 NVL72: 72 GPUs in one NVLink 5 domain (900 GB/s per direction per GPU through the rack's
// NVLink switch trays), one 400 Gb/s ConnectX-7 per GPU on a rail-optimised fabric with one rail
// per GPU slot of a 4-GPU compute tray. NVLink efficiency: the NCCL maintainers' 370/450 (notes).
ClusterConfig nvl72() {
  ClusterConfig c;
  c.preset = "nvl72";
  c.devices_per_node = 72;
  c.scaleup_bytes_per_s = 900e9;
  // Achievable NVLink egress of the MoE all-to-all kernels, fitted with the fixed costs to
  // TensorRT-LLM's NVLinkOneSided kernels on GB200 NVL72 (nvl72_alltoall_gb200.csv: every cell
  // within 15 %, AllToAllNvl72.ReproducesEveryPublishedCellWithin15Percent); the NCCL
  // maintainers' 370 of 450 GB/s (0.822) agrees.
  c.scaleup_efficiency = 0.824;
  c.rails = 4;
  return c;
}

// Huawei CloudMatrix384 (arXiv 2506.12708): 384 Ascend 910C NPUs on one Unified-Bus supernode,
// 48 boards of 8 NPUs; each board's NPUs hang off its L1 UB switches, which connect
// non-blocking to the L2 UB switches. UB: 392 GB/s unidirectional per NPU; RDMA plane (RoCE):
// 400 Gb/s per NPU.
ClusterConfig cloudmatrix384() {
  ClusterConfig c;
  c.preset = "cloudmatrix384";
  c.devices_per_node = 384;
  c.devices_per_board = 8;
  c.scaleup_bytes_per_s = 392e9;
  c.scaleup_efficiency = 370.0 / 450.0;
  c.rails = 8;
  return c;
}

// AMD Instinct platforms (MI300X, MI325X, MI355X): 8 GPUs per node fully connected by Infinity
// Fabric (xGMI), no switch: each GPU has seven links, one to each peer, so a pair's traffic is
// limited to one link (the device's scale-up bandwidth / 7 per direction: 64 GB/s on MI300X) and
// only an all-to-all among all eight reaches the device's whole scale-up bandwidth. One 400 Gb/s
// NIC per GPU on rail-optimised leaves, as hgx. Link efficiency and fixed costs are hgx's (no
// published xGMI all-to-all measurement is in the calibration data; an assumption).
ClusterConfig xgmi() {
  ClusterConfig c;
  c.preset = "xgmi";
  c.scaleup_bytes_per_s = 448e9;  // MI300X datasheet: 896 GB/s over seven links, both directions
  c.rails = 8;
  return c;
}

// Huawei Atlas 800T A2 servers: 8 Ascend 910B NPUs fully connected by HCCS, no switch: seven
// links of 56 GB/s (392 GB/s per NPU counted over both directions, 28 GB/s per link and
// direction), so, as on the xGMI mesh, a pair is limited to its own link. One 200 GbE RoCE port
// per NPU on rail-optimised leaves. Link efficiency and fixed costs are hgx's (no published HCCS
// all-to-all measurement is in the calibration data; an assumption).
ClusterConfig hccs() {
  ClusterConfig c;
  c.preset = "hccs";
  c.scaleup_bytes_per_s = 196e9;  // Atlas 800T A2: 392 GB/s HCCS per NPU, both directions
  c.nic_bytes_per_s = 25e9;       // 200 Gb/s
  c.rails = 8;
  return c;
}

// Generic: scale-up domains of devices_per_node devices on one switch, one NIC per device on a
// top-of-rack leaf per domain, leaves under spines with the given oversubscription.
ClusterConfig generic() {
  ClusterConfig c;
  c.preset = "generic";
  c.rails = 0;
  return c;
}

const std::vector<PresetEntry>& entries() {
  static const std::vector<PresetEntry> kEntries = {
      {{"hgx", "nodes of 8 GPUs on NVSwitch, one NIC per GPU, rail-optimised leaves under spines"}, &hgx},
      {{"nvl72", "racks of 72 GPUs in one NVLink 5 domain, one scale-out NIC per GPU", ScaleUpShape::kSwitch, "gpu",
        "nvlswitch"},
       &nvl72},
      {{"xgmi", "AMD nodes of 8 GPUs in a full xGMI mesh (a link per pair, no switch), one NIC per GPU",
        ScaleUpShape::kMesh},
       &xgmi},
      {{"hccs", "Huawei Ascend 910B servers of 8 NPUs in a full HCCS mesh (a link per pair), one NIC per NPU",
        ScaleUpShape::kMesh, "npu"},
       &hccs},
      {{"cloudmatrix384", "384 Ascend NPUs on one UB supernode (boards of 8), RoCE scale-out", ScaleUpShape::kSwitch,
        "npu", "ub"},
       &cloudmatrix384},
      {{"generic", "N devices per scale-up domain, top-of-rack leaves, oversubscribed spines"}, &generic},
  };
  return kEntries;
}

std::string preset_names() {
  std::string s;
  for (const auto& e : entries()) s += (s.empty() ? "" : ", ") + std::string(e.info.name);
  return s;
}

}  // namespace

std::vector<ClusterPresetInfo> cluster_presets() {
  std::vector<ClusterPresetInfo> v;
  for (const auto& e : entries()) v.push_back(e.info);
  return v;
}

namespace {
const PresetEntry& find_entry(std::string_view preset) {
  for (const auto& e : entries())
    if (e.info.name == preset) return e;
  throw TopologyError("unknown cluster preset '" + std::string(preset) + "' (valid: " + preset_names() + ")");
}
}  // namespace

ClusterConfig cluster_preset_defaults(std::string_view preset) { return find_entry(preset).defaults(); }

const ClusterPresetInfo& find_cluster_preset(std::string_view preset) { return find_entry(preset).info; }

Vertex add_vertex(Graph& g, VertexKind kind, int node, int index, std::string name) {
  return boost::add_vertex(VertexProps{kind, node, index, std::move(name)}, g);
}

int add_link(Graph& g, Vertex a, Vertex b, const LinkProps& props) {
  LinkProps p = props;
  p.id = static_cast<int>(boost::num_edges(g));
  boost::add_edge(a, b, p, g);
  ++p.id;
  boost::add_edge(b, a, p, g);
  return p.id - 1;
}

void FabricBuilder::build_preset() {
  const ClusterConfig& cfg = c_.config_;
  const PresetEntry& entry = find_entry(cfg.preset);
  preset_ = &entry.info;
  const int rails = cfg.rails >= 0 ? cfg.rails : entry.defaults().rails;
  const bool mesh = preset_->shape == ScaleUpShape::kMesh;
  if (cfg.dies_per_package < 1 || cfg.devices_per_node % cfg.dies_per_package != 0 ||
      (cfg.devices_per_board > 0 && cfg.devices_per_board % cfg.dies_per_package != 0))
    throw TopologyError(
        "packages of " + std::to_string(cfg.dies_per_package) + " dies do not tile nodes of " +
        std::to_string(cfg.devices_per_node) + " devices" +
        (cfg.devices_per_board > 0 ? " (boards of " + std::to_string(cfg.devices_per_board) + ")" : ""));
  add_devices();
  if (mesh) {
    add_scaleup_mesh();
  } else {
    add_scaleup(cfg.devices_per_board > 0);
  }
  if (cfg.dies_per_package > 1) add_package_links();
  add_scaleout(rails);
  // A mesh has no one scale-up link per device that bounds its traffic: its all-to-alls are
  // costed flow by flow over the pairs' own links, as a custom fabric's (Cluster::regular()).
  if (mesh) {
    c_.device_links_.clear();
    c_.leaves_.clear();
  }
}

// A full mesh per node: one link between every pair of its devices, the device's scale-up
// bandwidth split evenly over its devices_per_node - 1 links.
void FabricBuilder::add_scaleup_mesh() {
  const ClusterConfig& cfg = c_.config_;
  for (int n = 0; n < cfg.nodes; ++n) {
    const LinkProps pair{cfg.node_scaleup_bytes_per_s(n) / std::max(1, cfg.devices_per_node - 1),
                         cfg.scaleup_latency_ns / 2, cfg.scaleup_efficiency, LinkClass::kScaleUp};
    for (int i = 0; i < cfg.devices_per_node; ++i)
      for (int j = i + 1; j < cfg.devices_per_node; ++j)
        add_link(g_, devices_[static_cast<std::size_t>(n * cfg.devices_per_node + i)],
                 devices_[static_cast<std::size_t>(n * cfg.devices_per_node + j)], pair);
  }
}

// The dies of each package joined by their own link. The analytic all-to-all keeps bounding a
// die by its scale-up port (DeviceLinks), so there a die pair's bytes count on the switch ports
// (1/(ranks - 1) of an even all-to-all's); routed and flow-level costing take the package link.
void FabricBuilder::add_package_links() {
  const ClusterConfig& cfg = c_.config_;
  const LinkProps link{cfg.package_link_bytes_per_s, cfg.scaleup_latency_ns / 2, cfg.scaleup_efficiency,
                       LinkClass::kScaleUp};
  const int k = cfg.dies_per_package;
  for (std::size_t first = 0; first < devices_.size(); first += static_cast<std::size_t>(k))
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j)
        add_link(g_, devices_[first + static_cast<std::size_t>(i)], devices_[first + static_cast<std::size_t>(j)],
                 link);
}

void FabricBuilder::add_devices() {
  const ClusterConfig& cfg = c_.config_;
  const std::string stem(cfg.dies_per_package > 1 ? "die" : preset_->device_stem);
  c_.device_links_.assign(static_cast<std::size_t>(cfg.nodes) * cfg.devices_per_node, DeviceLinks{});
  for (int n = 0; n < cfg.nodes; ++n)
    for (int i = 0; i < cfg.devices_per_node; ++i) {
      const int d = n * cfg.devices_per_node + i;
      devices_.push_back(add_vertex(g_, VertexKind::kDevice, n, d, stem + std::to_string(d)));
    }
}

// One scale-up switch per node (NVSwitch planes and NVLink switch trays aggregated into one
// vertex), or with boards: an L1 switch per board under one non-blocking L2 switch per node.
void FabricBuilder::add_scaleup(bool boards) {
  const ClusterConfig& cfg = c_.config_;
  const std::string sw(preset_->switch_stem);
  for (int n = 0; n < cfg.nodes; ++n) {
    const LinkProps up{cfg.node_scaleup_bytes_per_s(n), cfg.scaleup_latency_ns / 2, cfg.scaleup_efficiency,
                       LinkClass::kScaleUp};
    const Vertex top = add_vertex(g_, VertexKind::kScaleUpSwitch, n, n, sw + std::to_string(n) + (boards ? ".l2" : ""));
    const int per_board = boards ? cfg.devices_per_board : cfg.devices_per_node;
    for (int b = 0; b < cfg.devices_per_node / per_board; ++b) {
      Vertex parent = top;
      if (boards) {
        parent = add_vertex(g_, VertexKind::kScaleUpSwitch, n, b, sw + std::to_string(n) + ".l1." + std::to_string(b));
        LinkProps trunk = up;
        trunk.bytes_per_s *= per_board;  // non-blocking L1 -> L2
        trunk.latency_ns = 0;
        add_link(g_, parent, top, trunk);
      }
      for (int i = b * per_board; i < (b + 1) * per_board; ++i) {
        const int d = n * cfg.devices_per_node + i;
        auto& dl = c_.device_links_[static_cast<std::size_t>(d)];
        dl.scaleup_out = add_link(g_, devices_[static_cast<std::size_t>(d)], parent, up);
        dl.scaleup_in = dl.scaleup_out + 1;
      }
    }
  }
}

// One NIC per device behind a host link (PCIe Gen5 x16, not the bottleneck: 2x the NIC), NICs on
// leaves (rail i % rails, or the node's top-of-rack leaf), leaves under `spines` spines whose
// up-links carry the leaf's NIC capacity divided by the oversubscription.
void FabricBuilder::add_scaleout(int rails) {
  const ClusterConfig& cfg = c_.config_;
  const int num_leaves = rails > 0 ? std::min(rails, cfg.devices_per_node) : cfg.nodes;
  std::vector<Vertex> leaves;
  for (int l = 0; l < num_leaves; ++l)
    leaves.push_back(add_vertex(g_, VertexKind::kLeafSwitch, -1, l, (rails > 0 ? "rail" : "tor") + std::to_string(l)));
  std::vector<int> ports(static_cast<std::size_t>(num_leaves), 0);
  std::vector<double> nic_capacity(static_cast<std::size_t>(num_leaves), 0.0);  // line rate of the leaf's NICs
  for (int d = 0; d < static_cast<int>(devices_.size()); ++d) {
    const int n = d / cfg.devices_per_node, i = d % cfg.devices_per_node;
    const double rate = cfg.node_nic_bytes_per_s(n);
    const LinkProps host{rate * 2, 0, 1.0, LinkClass::kHost};
    const LinkProps wire{rate, cfg.nic_latency_ns / 2, cfg.nic_efficiency, LinkClass::kScaleOut};
    const int leaf = rails > 0 ? i % num_leaves : n;
    const Vertex nic = add_vertex(g_, VertexKind::kNic, n, i, "node" + std::to_string(n) + ".nic" + std::to_string(i));
    auto& dl = c_.device_links_[static_cast<std::size_t>(d)];
    dl.host_out = add_link(g_, devices_[static_cast<std::size_t>(d)], nic, host);
    dl.host_in = dl.host_out + 1;
    dl.nic_out = add_link(g_, nic, leaves[static_cast<std::size_t>(leaf)], wire);
    dl.nic_in = dl.nic_out + 1;
    dl.leaf = leaf;
    ++ports[static_cast<std::size_t>(leaf)];
    nic_capacity[static_cast<std::size_t>(leaf)] += rate;
  }
  c_.leaves_.assign(static_cast<std::size_t>(num_leaves), LeafLinks{});
  if (num_leaves < 2) return;
  std::vector<Vertex> spines;
  for (int s = 0; s < cfg.spines; ++s)
    spines.push_back(add_vertex(g_, VertexKind::kSpineSwitch, -1, s, "spine" + std::to_string(s)));
  for (int l = 0; l < num_leaves; ++l) {
    LinkProps trunk{0, 0, cfg.nic_efficiency, LinkClass::kFabric};
    const auto leaf = static_cast<std::size_t>(l);
    trunk.bytes_per_s = (cfg.node_groups.empty() ? cfg.nic_bytes_per_s * ports[leaf] : nic_capacity[leaf]) /
                        (cfg.oversubscription * cfg.spines);
    for (const Vertex s : spines) {
      const int id = add_link(g_, leaves[static_cast<std::size_t>(l)], s, trunk);
      c_.leaves_[static_cast<std::size_t>(l)].up.push_back(id);
      c_.leaves_[static_cast<std::size_t>(l)].down.push_back(id + 1);
    }
  }
}

}  // namespace moesim::topology
