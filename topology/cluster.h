// Cluster: the devices of a deployment and the fabric between them, as a Boost.Graph graph
// (topology/fabric_graph.h; this header keeps Boost out, and Cluster's lookups need none of it).
//
// Vertices are devices (GPUs/NPUs), scale-up switches (NVSwitch, UB), NICs and scale-out switches
// (leaves, spines); edges are directed links with a per-direction line rate, an efficiency (the
// fraction of line rate collectives achieve) and a latency. A full-duplex cable is two edges.
//
// A "node" is one scale-up domain: an HGX server, an NVL72 rack, a CloudMatrix384 supernode.
// Devices are numbered 0..N-1 in node-major order (device d sits on node d / devices_per_node at
// local index d % devices_per_node). Presets (cluster_presets(), docs/topology.md has the sources):
// `hgx`, `nvl72`, `xgmi`, `hccs`, `cloudmatrix384`, `generic`; custom fabrics come from
// topology_yaml.h.
// Every link has an id (0..num_links()-1), the index used by per-link loads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/error.h"

namespace moesim::topology {

class TopologyError : public models::Error {
 public:
  explicit TopologyError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kTopology, what, std::move(position)) {}
};

// The most devices a cluster may have (nodes × devices_per_node), refused beyond before anything
// is built: 131072, above the largest clusters deployed (docs/robustness.md).
inline constexpr int kMaxClusterDevices = 1 << 17;

// Bandwidths are per direction, in bytes per second, at line rate; the efficiencies turn line
// rate into what collectives achieve. The defaults are the hgx/H800 calibration of
// docs/topology.md (fitted to DeepEP's published normal-mode table); cluster_preset_defaults()
// gives each preset's own values.
struct ClusterConfig {
  std::string preset = "hgx";
  int nodes = 1;                       // scale-up domains
  int devices_per_node = 8;            // devices per scale-up domain
  double scaleup_bytes_per_s = 200e9;  // NVLink per device per direction (H800: 400 GB/s bidir)
  double nic_bytes_per_s = 50e9;       // one 400 Gb/s NIC per device
  double scaleup_efficiency = 0.68;    // fitted: DeepEP intranode EP8 (docs/topology.md)
  double nic_efficiency = 0.88;        // fitted: DeepEP internode EP32/EP64 (docs/topology.md)
  double scaleup_latency_ns = 2'000;   // one scale-up collective phase (kernel launch + sync)
  double nic_latency_ns = 5'000;       // one RDMA collective phase
  // Added with issue 4; the defaults keep older scenarios unchanged.
  int rails = -1;                     // scale-out leaves: -1 preset default, 0 one leaf per node
                                      // (top of rack), R > 0 rail-optimised (NIC i on leaf i % R)
  int spines = 4;                     // spine switches (ECMP spreads cross-leaf traffic over them)
  double oversubscription = 1.0;      // leaf down-port capacity / leaf up-port capacity (>= 1)
  double nic_messages_per_s = 330e6;  // NIC message rate (per-message term of low-latency mode)
  int devices_per_board = 0;          // cloudmatrix384: NPUs per board under one L1 UB switch (0: none)
  // Multi-die packages run a rank per die (calibration::HardwareProfile::dies): every device is
  // then one die, every dies_per_package consecutive devices of a node share a package, and the
  // dies of a package are joined by a direct link of package_link_bytes_per_s per direction (a
  // scale-up link, so their traffic takes it rather than the switch). Sizes, bandwidths and
  // boards above are then counted in dies. 1: devices are whole packages.
  int dies_per_package = 1;
  double package_link_bytes_per_s = 0;
  // The fixed cost of an MoE all-to-all kernel (topology/a2a_fixed.h): its launch, its barrier or
  // flag signalling and its completion polling, plus a flag per peer. Fitted to TensorRT-LLM's
  // NVLinkOneSided dispatch and combine on GB200 NVL72 (calibration data nvl72_alltoall_gb200.csv;
  // docs/topology.md); other fabrics reuse them (an assumption: the same one-sided design).
  double a2a_dispatch_fixed_ns = 14'300;
  double a2a_combine_fixed_ns = 23'900;
  double a2a_dispatch_peer_ns = 190;
  double a2a_combine_peer_ns = 50;
  // Nodes whose devices have other ports than the figures above (a cluster mixing GPU types, e.g.
  // H800 servers for prefill and H20 servers for decode): each group's scale-up and NIC rates
  // replace scaleup_bytes_per_s and nic_bytes_per_s on its nodes' links. Efficiencies, latencies
  // and the switch layers stay the cluster's. Groups may not overlap; empty: every node alike.
  struct NodeGroup {
    int first_node = 0;
    int nodes = 1;
    double scaleup_bytes_per_s = 0;
    double nic_bytes_per_s = 0;
  };
  std::vector<NodeGroup> node_groups;
  // The per-direction port rates of a device on `node` (a node group's, or the figures above).
  double node_scaleup_bytes_per_s(int node) const;
  double node_nic_bytes_per_s(int node) const;
};

// How a preset's devices reach each other inside a node.
enum class ScaleUpShape {
  kSwitch,  // every device on the node's scale-up switch (NVSwitch, NVLink switch trays, UB)
  kMesh,    // a link per pair of devices, no switch (xGMI, HCCS)
};
struct ClusterPresetInfo {
  std::string_view name;
  std::string_view description;
  ScaleUpShape shape = ScaleUpShape::kSwitch;
  std::string_view device_stem = "gpu";       // vertex names: gpu0, npu0 (die0 with dies_per_package > 1)
  std::string_view switch_stem = "nvswitch";  // scale-up switch vertex names: nvswitch0, nvlswitch0, ub0
};
// The presets Cluster can build (a registry: name and one-line description).
std::vector<ClusterPresetInfo> cluster_presets();
// A preset's own defaults (sizes, bandwidths, efficiencies, latencies) with nodes = 1; throws
// TopologyError for an unknown name. Start from these, then apply the user's keys.
ClusterConfig cluster_preset_defaults(std::string_view preset);
// The preset named `preset`; throws TopologyError for an unknown name.
const ClusterPresetInfo& find_cluster_preset(std::string_view preset);

enum class VertexKind { kDevice, kScaleUpSwitch, kNic, kLeafSwitch, kSpineSwitch };
// Which fabric a link belongs to; routes between devices of one scale-up domain use kScaleUp
// links only, other routes use the rest.
enum class LinkClass { kScaleUp, kHost, kScaleOut, kFabric };
std::string_view to_string(VertexKind k);
std::string_view to_string(LinkClass c);

struct VertexProps {
  VertexKind kind = VertexKind::kDevice;
  int node = -1;   // owning node (scale-up domain), -1 for shared switches
  int index = -1;  // device id, NIC rail, switch index
  std::string name;
};

struct LinkProps {
  double bytes_per_s = 0;  // line rate, per direction
  double latency_ns = 0;
  double efficiency = 1.0;  // achievable fraction of line rate
  LinkClass cls = LinkClass::kScaleUp;
  int id = -1;
};

// The links that bound a device's traffic on a preset fabric (ids, -1 when absent). The
// analytic all-to-all uses them instead of routing every pair.
struct DeviceLinks {
  int scaleup_out = -1, scaleup_in = -1;  // device -> scale-up switch and back
  int host_out = -1, host_in = -1;        // device -> NIC and back
  int nic_out = -1, nic_in = -1;          // NIC -> leaf and back
  int leaf = -1;                          // index into Cluster::leaves()
};
struct LeafLinks {
  std::vector<int> up, down;  // leaf -> spine and spine -> leaf link ids
};

struct Route;        // topology/routing.h
struct RouteCache;   // topology/routing.h
struct FabricGraph;  // topology/fabric_graph.h

class Cluster {
 public:
  // Builds the preset named in `config`; throws TopologyError for an unknown preset or bad sizes.
  explicit Cluster(const ClusterConfig& config);
  // A custom fabric (topology_yaml.h): every vertex and link given; devices are the kDevice
  // vertices, in vertex order, and their `node` is the scale-up domain. Validates the graph.
  Cluster(FabricGraph fabric, ClusterConfig config);
  // Copies and moves share the graph (immutable once built) and the route cache.
  Cluster(const Cluster& other) = default;
  Cluster(Cluster&& other) = default;
  Cluster& operator=(const Cluster& other) = default;
  Cluster& operator=(Cluster&& other) = default;
  ~Cluster() = default;

  const ClusterConfig& config() const { return config_; }
  // The graph itself, for code that walks it (include topology/fabric_graph.h).
  const FabricGraph& fabric() const { return *fabric_; }

  int num_devices() const { return static_cast<int>(device_node_.size()); }
  int num_nodes() const { return num_nodes_; }
  int node_of(int device) const { return device_node_[static_cast<std::size_t>(device)]; }
  int local_index(int device) const { return device_local_[static_cast<std::size_t>(device)]; }
  bool same_scaleup_domain(int a, int b) const { return node_of(a) == node_of(b); }
  // The device at `local` on `node`, or -1.
  int device_at(int node, int local) const;

  int num_links() const { return static_cast<int>(link_props_.size()); }
  const LinkProps& link_props(int id) const { return link_props_[static_cast<std::size_t>(id)]; }
  double link_capacity(int id) const;   // effective bytes per second
  std::string link_name(int id) const;  // "gpu3 -> nvswitch0 (scale-up)"

  // Preset fabrics know each device's bounding links; custom ones do not (regular() false).
  bool regular() const { return !device_links_.empty(); }
  const DeviceLinks& device_links(int device) const { return device_links_[static_cast<std::size_t>(device)]; }
  const std::vector<LeafLinks>& leaves() const { return leaves_; }

  // Achievable per-direction bandwidths of a device (line rate × efficiency), bytes per second:
  // the cluster's figures, or those of `device`'s own node (ClusterConfig::node_groups).
  double effective_scaleup_bytes_per_s() const;
  double effective_nic_bytes_per_s() const;
  double effective_nic_bytes_per_s(int device) const;

  // This fabric under another config, for figures the graph does not hold (a custom fabric's
  // nic_messages_per_s); the copy shares the graph and computes its routes afresh.
  Cluster with_config(ClusterConfig config) const;

  // Shortest-path ECMP routes between devices (topology/routing.h), cached.
  const Route& route(int src_device, int dst_device) const;
  const std::vector<Route>& routes_from(int src_device) const;
  const RouteCache& route_cache() const { return *routes_; }

 private:
  void index_graph(FabricGraph built);

  ClusterConfig config_;
  std::shared_ptr<const FabricGraph> fabric_;
  int num_nodes_ = 0;
  std::vector<int> device_node_, device_local_;
  std::vector<LinkProps> link_props_;  // by link id: a copy of the graph's, read on hot paths
  std::vector<DeviceLinks> device_links_;
  std::vector<LeafLinks> leaves_;
  std::shared_ptr<RouteCache> routes_;

  friend class FabricBuilder;
};

}  // namespace moesim::topology
