#include "sim/kv_transfer.h"

namespace moesim::sim {

double kv_transfer_ns(const topology::Cluster& cluster, int src_device, int dst_device, double bytes) {
  if (src_device == dst_device || bytes <= 0) return 0;
  const auto& c = cluster.config();
  if (cluster.same_scaleup_domain(src_device, dst_device))
    return c.scaleup_latency_ns + bytes / cluster.effective_scaleup_bytes_per_s() * 1e9;
  return c.nic_latency_ns + bytes / cluster.effective_nic_bytes_per_s() * 1e9;
}

}  // namespace moesim::sim
