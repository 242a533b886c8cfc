// KV-cache transfer from a prefill rank to a decode rank (PD disaggregation).
//
// A point-to-point copy of the prompt's KV cache (every layer) over the path between the two
// devices: NVLink inside a scale-up domain, else the NICs, at the cluster's effective
// bandwidth plus one latency. Concurrent transfers are not made to share links (optimistic
// when many prompts finish together).
#pragma once

#include "topology/cluster.h"

namespace moesim::sim {

double kv_transfer_ns(const topology::Cluster& cluster, int src_device, int dst_device, double bytes);

}  // namespace moesim::sim
