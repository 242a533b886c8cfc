// Cluster: the devices of a deployment and the fabric between them, as a Boost.Graph graph.
//
// Vertices are devices (GPUs/NPUs), scale-up switches (NVSwitch), NICs and scale-out switches;
// edges are links with a per-direction bandwidth and a latency. Devices are numbered 0..N-1 in
// node-major order (device d sits on node d / devices_per_node at local index
// d % devices_per_node). Presets: `hgx` (8 devices per node on NVSwitch, one NIC per device,
// rail-optimised leaves under a spine).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

namespace moesim::topology {

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bandwidths are per direction, in bytes per second, at line rate; the efficiencies turn line
// rate into what collectives achieve (see docs/topology.md for the sources of the defaults).
struct ClusterConfig {
  std::string preset = "hgx";
  int nodes = 1;
  int devices_per_node = 8;
  double scaleup_bytes_per_s = 200e9;   // NVLink per device per direction (H800: 400 GB/s bidir)
  double nic_bytes_per_s = 50e9;        // one 400 Gb/s NIC per device
  double scaleup_efficiency = 0.78;     // DeepEP intranode EP8 on H800: 153-158 GB/s of 200 GB/s
  double nic_efficiency = 0.97;         // ConnectX-7 NDR reaches 48-49 GB/s of 50 GB/s (nccl-tests #267)
  double scaleup_latency_ns = 2'000;    // one scale-up collective phase (kernel launch + sync)
  double nic_latency_ns = 5'000;        // one RDMA collective phase
};

struct ClusterPresetInfo {
  std::string_view name;
  std::string_view description;
};
// The presets Cluster can build (a registry: name and one-line description).
std::vector<ClusterPresetInfo> cluster_presets();

enum class VertexKind { kDevice, kScaleUpSwitch, kNic, kLeafSwitch, kSpineSwitch };

struct VertexProps {
  VertexKind kind = VertexKind::kDevice;
  int node = -1;   // owning node, -1 for shared switches
  int index = -1;  // device id, NIC rail, switch index
  std::string name;
};

struct LinkProps {
  double bytes_per_s = 0;
  double latency_ns = 0;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexProps, LinkProps>;

class Cluster {
 public:
  // Builds the preset named in `config`; throws TopologyError for an unknown preset or bad sizes.
  explicit Cluster(const ClusterConfig& config);

  const ClusterConfig& config() const { return config_; }
  const Graph& graph() const { return graph_; }

  int num_devices() const { return config_.nodes * config_.devices_per_node; }
  int num_nodes() const { return config_.nodes; }
  int node_of(int device) const { return device / config_.devices_per_node; }
  int local_index(int device) const { return device % config_.devices_per_node; }
  bool same_scaleup_domain(int a, int b) const { return node_of(a) == node_of(b); }

  // Achievable per-direction bandwidths (line rate × efficiency), bytes per second.
  double effective_scaleup_bytes_per_s() const;
  double effective_nic_bytes_per_s() const;

 private:
  ClusterConfig config_;
  Graph graph_;
};

}  // namespace moesim::topology
