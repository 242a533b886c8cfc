#include "topology/a2a_fixed.h"

#include <algorithm>

namespace moesim::topology {

double AllToAllAlgorithm::fixed_ns(const ClusterConfig& c, const AllToAllOptions& o, int ranks) const {
  if (ranks <= 1) return 0.0;
  const double peers = std::max(0, ranks - 1);
  return o.direction == Direction::kCombine ? c.a2a_combine_fixed_ns + peers * c.a2a_combine_peer_ns
                                            : c.a2a_dispatch_fixed_ns + peers * c.a2a_dispatch_peer_ns;
}

double a2a_fixed_ns(const ClusterConfig& c, const AllToAllOptions& o, int ranks) {
  return o.algorithm->fixed_ns(c, o, ranks);
}

}  // namespace moesim::topology
