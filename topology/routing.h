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

struct Route {
  std::vector<RouteHop> hops;
  double latency_ns = 0;  // expected path latency (fraction-weighted sum of link latencies)
};

// Owned by Cluster (shared by its copies, whose graphs are identical); use Cluster::route().
struct RouteCache {
  explicit RouteCache(int num_devices);
  RouteCache(const RouteCache&) = delete;
  RouteCache& operator=(const RouteCache&) = delete;

  // The route from device `src` to device `dst` (empty for src == dst).
  const Route& route(const Cluster& cluster, int src, int dst) const;
  // Every route from `src`, indexed by destination device.
  const std::vector<Route>& routes_from(const Cluster& cluster, int src) const;

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<std::vector<Route>>> table_;
};

}  // namespace moesim::topology
