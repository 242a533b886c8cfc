// Custom fabrics from YAML: the graph's nodes (devices, switches, NICs) and its links.
//
//   nodes:
//     - {name: gpu0, kind: device, domain: 0}     # kind: device | scaleup_switch | nic | leaf | spine
//     - {name: sw0, kind: scaleup_switch}         # domain: the scale-up domain (devices only)
//   links:                                        # full duplex unless duplex: false
//     - {from: gpu0, to: sw0, bandwidth: 200GB/s, latency: 1us, efficiency: 0.7, class: scale-up}
//
// bandwidth: per direction, with a unit; latency: a duration (units: models/units.h)
// (default 0); efficiency in (0, 1] (default 1); class: scale-up | host | scale-out | fabric
// (default: scale-up when an end is a scale-up switch or both are devices, host for device-NIC,
// fabric for leaf-spine, scale-out otherwise). Devices are numbered in the order listed.
// Errors (TopologyError) name source:line:column; a disconnected fabric or a zero-bandwidth link
// is refused.
#pragma once

#include <string>
#include <string_view>

#include "topology/cluster.h"

namespace moesim::topology {

Cluster load_topology_yaml(std::string_view text, const std::string& source);
Cluster load_topology_file(const std::string& path);

}  // namespace moesim::topology
