// Routes between devices: Boost.Graph breadth-first search for shortest paths (in hops), with
// ECMP: a flow is split evenly over all equal-cost paths, so a route is a set of links each
// carrying a fraction of the flow (1 on a single path; 1/S on each of S spines).
//
// Traffic between two devices of one scale-up domain uses scale-up links only; traffic between
// domains uses the other links (host, NIC, leaves, spines). A custom fabric that cannot honour
// that falls back to every link. Routes are computed on first use, per source device, and cached
// for the life of the Cluster (thread-safe).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "topology/cluster.h"

namespace moesim::topology {

struct RouteHop {
  int link = -1;
  double fraction = 0;  // share of the flow on this link
};

struct FlowRoutes;
struct RankLayout;  // topology/rank_layout.h

struct Route {
  std::vector<RouteHop> hops;
  double latency_ns = 0;  // expected path latency (fraction-weighted sum of link latencies)
};

// Owned by Cluster (shared by its copies, whose graphs are identical); use Cluster::route().
// It also keeps the rank layouts of the last few placements the closed-form all-to-all costed
// (layout()), which a caller that costs one placement again and again then builds once.
struct RouteCache {
  explicit RouteCache(int num_devices);
  RouteCache(const RouteCache&) = delete;
  RouteCache& operator=(const RouteCache&) = delete;

  // The route from device `src` to device `dst` (empty for src == dst).
  const Route& route(const Cluster& cluster, int src, int dst) const;
  // Every route from `src`, indexed by destination device. `network`: routes over the
  // scale-out links to every device, those of src's own scale-up domain included (where the
  // fabric has no such path, the shortest over all links).
  const std::vector<Route>& routes_from(const Cluster& cluster, int src, bool network = false) const;
  // The same routes as the flow-level model sees them (flow_routes_from below).
  const FlowRoutes& flow_routes_from(const Cluster& cluster, int src, bool network = false) const;
  // The layout of `rank_device` on `cluster` (RankLayout's constructor, which throws for a bad
  // placement; only good ones are kept).
  std::shared_ptr<const RankLayout> layout(const Cluster& cluster, const std::vector<int>& rank_device,
                                           bool network_only = false) const;

 private:
  static constexpr std::size_t kLayouts = 4;
  mutable std::mutex layout_mutex_;
  mutable std::vector<std::shared_ptr<const RankLayout>> layouts_;  // most recently used last
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<std::vector<Route>>> table_[2];  // [network]
  mutable std::vector<std::unique_ptr<FlowRoutes>> flow_table_[2];
};

// Routes reduced for max-min sharing, which leaves rates unchanged on a preset fabric
// (Cluster::regular()): a leaf's ECMP links to the spines (and from them) act as one link, named
// by the first id of LeafLinks::up (or ::down), since every flow splits evenly over them and
// they saturate together; host links, each carrying exactly its NIC link's flows at a higher
// capacity, are dropped. On a custom fabric the routes are kept as they are. Packed per source:
// the hops to destination d are hops[offset[d]] .. hops[offset[d + 1] - 1].
struct FlowRoutes {
  std::vector<int> offset;
  std::vector<RouteHop> hops;
};
const FlowRoutes& flow_routes_from(const Cluster& cluster, int src_device, bool network = false);
// The capacity of a link of those routes (a merged group: the sum of its links), bytes per second.
double flow_link_capacity(const Cluster& cluster, int link);
// How the load of every link follows from the loads on the reduced routes: link l carries
// `share` times the load of reduced link `of` (itself, 1, where the link is kept; the group
// head, 1 / spines, for a spine link; the NIC link, 1, for a host link).
struct LinkShare {
  int of = -1;
  double share = 1;
};
std::vector<LinkShare> flow_link_shares(const Cluster& cluster);
// Per link id: 0 for a reduced link that can never bind, so that max-min sharing may leave it
// out: a leaf's spine group whose capacity covers every NIC link of the leaf on that side (each
// flow through the group also crosses one of them; no oversubscription), 1 otherwise.
std::vector<char> flow_links_that_bind(const Cluster& cluster);

}  // namespace moesim::topology
