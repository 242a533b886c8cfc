// All-to-all-v cost on a cluster (analytic fidelity).
//
// Input: a traffic matrix of bytes from source rank to destination rank and the device each rank
// runs on. Output: the collective's duration and the per-rank volumes that bound it. The analytic
// model takes, for every device, the bytes it sends and receives inside its scale-up domain and
// across the scale-out network; NVLink and the NIC run concurrently, so a device needs the larger
// of its scale-up and scale-out times, and the collective lasts as long as its slowest device,
// plus a latency term for each fabric the traffic touches.
#pragma once

#include <cstddef>
#include <vector>

#include "topology/cluster.h"

namespace moesim::topology {

class TrafficMatrix {
 public:
  explicit TrafficMatrix(int ranks) : ranks_(ranks), bytes_(static_cast<std::size_t>(ranks) * ranks, 0.0) {}
  int ranks() const { return ranks_; }
  double& at(int src, int dst) { return bytes_[static_cast<std::size_t>(src) * ranks_ + dst]; }
  double at(int src, int dst) const { return bytes_[static_cast<std::size_t>(src) * ranks_ + dst]; }
  double total_bytes() const;

 private:
  int ranks_;
  std::vector<double> bytes_;
};

struct CollectiveCost {
  double duration_ns = 0;
  double max_scaleup_bytes = 0;   // largest per-device scale-up send or receive volume
  double max_scaleout_bytes = 0;  // largest per-device scale-out send or receive volume
  int bottleneck_rank = -1;
};

// `rank_device[r]` is the cluster device of rank r. Traffic from a rank to itself is free.
CollectiveCost all_to_all_v_analytic(const Cluster& cluster, const std::vector<int>& rank_device,
                                     const TrafficMatrix& traffic);

}  // namespace moesim::topology
