#include "topology/all_to_all.h"

#include <algorithm>
#include <numeric>

namespace moesim::topology {

double TrafficMatrix::total_bytes() const { return std::accumulate(bytes_.begin(), bytes_.end(), 0.0); }

CollectiveCost all_to_all_v_analytic(const Cluster& cluster, const std::vector<int>& rank_device,
                                     const TrafficMatrix& traffic) {
  const int n = traffic.ranks();
  if (static_cast<int>(rank_device.size()) != n)
    throw TopologyError("all-to-all: traffic matrix and rank placement disagree on the rank count");
  std::vector<double> up_send(n, 0), up_recv(n, 0), out_send(n, 0), out_recv(n, 0);
  bool any_up = false, any_out = false;
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      const double b = traffic.at(s, d);
      if (b <= 0) continue;
      if (cluster.same_scaleup_domain(rank_device[s], rank_device[d])) {
        up_send[s] += b;
        up_recv[d] += b;
        any_up = true;
      } else {
        out_send[s] += b;
        out_recv[d] += b;
        any_out = true;
      }
    }
  }
  const double up_bw = cluster.effective_scaleup_bytes_per_s();
  const double nic_bw = cluster.effective_nic_bytes_per_s();
  CollectiveCost cost;
  double worst_ns = 0;
  for (int r = 0; r < n; ++r) {
    const double up = std::max(up_send[r], up_recv[r]);
    const double out = std::max(out_send[r], out_recv[r]);
    cost.max_scaleup_bytes = std::max(cost.max_scaleup_bytes, up);
    cost.max_scaleout_bytes = std::max(cost.max_scaleout_bytes, out);
    const double t = std::max(up / up_bw, out / nic_bw) * 1e9;
    if (t > worst_ns || cost.bottleneck_rank < 0) {
      worst_ns = t;
      cost.bottleneck_rank = r;
    }
  }
  double latency_ns = 0;
  if (any_up) latency_ns = cluster.config().scaleup_latency_ns;
  if (any_out) latency_ns = std::max(latency_ns, cluster.config().nic_latency_ns);
  cost.duration_ns = worst_ns + latency_ns;
  return cost;
}

}  // namespace moesim::topology
