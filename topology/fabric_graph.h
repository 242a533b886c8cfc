// FabricGraph: the Boost.Graph graph behind a Cluster, for the few files that walk it (routing,
// presets, fabric files, DOT output, fidelity's bottleneck device, the reverse-link table).
//
// It lives apart from topology/cluster.h because <boost/graph/adjacency_list.hpp> costs every
// translation unit that parses it about 2 s of compile time, and most users of a Cluster need
// only its ids, link properties and routes. A Cluster holds its FabricGraph through a shared
// pointer: the graph is immutable once the cluster is built, so copies of a Cluster share it.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "topology/cluster.h"

namespace moesim::topology {

// Vertex properties are VertexProps, edge (directed link) properties LinkProps (cluster.h).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexProps, LinkProps>;
using Vertex = Graph::vertex_descriptor;
using Edge = Graph::edge_descriptor;

struct FabricGraph {
  Graph graph;
  // Filled by Cluster from `graph` once it sits in its shared, final place: the edge of each link
  // id and the vertex of each device id. Edge descriptors point into the graph's own storage, so
  // a copy of a filled FabricGraph would point into the original.
  std::vector<Edge> links;
  std::vector<Vertex> devices;
};

// A cluster's graph, the edge of link `id` and the vertex of device `device`.
inline const Graph& graph(const Cluster& c) { return c.fabric().graph; }
inline Edge link_edge(const Cluster& c, int id) { return c.fabric().links[static_cast<std::size_t>(id)]; }
inline Vertex device_vertex(const Cluster& c, int device) {
  return c.fabric().devices[static_cast<std::size_t>(device)];
}

}  // namespace moesim::topology
