#include "sim/tp_collective.h"

#include <algorithm>

namespace moesim::sim {

double tp_collective_ns(const topology::Cluster& cluster, const std::vector<int>& devices,
                        topology::CollectiveKind kind, double bytes, const topology::NetworkFidelity& fidelity) {
  if (bytes <= 0 || devices.size() < 2) return 0.0;
  const double ring =
      topology::collective(cluster, devices, kind, bytes, {topology::CollectiveAlgorithm::kRing, &fidelity})
          .duration_ns;
  const double tree =
      topology::collective(cluster, devices, kind, bytes, {topology::CollectiveAlgorithm::kTree, &fidelity})
          .duration_ns;
  return std::min(ring, tree);
}

}  // namespace moesim::sim
