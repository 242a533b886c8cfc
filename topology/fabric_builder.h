// Internal: builds the preset fabrics (hgx, nvl72, xgmi, hccs, cloudmatrix384, generic) into a
// Cluster's graph while the Cluster is constructed (before it freezes the graph) and records each
// device's bounding links. Presets and their sources: topology/presets.cpp and
// docs/topology.md. add_link() is shared with the YAML loader so every builder numbers links the
// same way (creation order).
#pragma once

#include <string>

#include "topology/cluster.h"
#include "topology/fabric_graph.h"

namespace moesim::topology {

// Adds a full-duplex link as two directed edges with the next free ids; returns the id of a -> b
// (b -> a is that id + 1).
int add_link(Graph& g, Vertex a, Vertex b, const LinkProps& props);
Vertex add_vertex(Graph& g, VertexKind kind, int node, int index, std::string name);

class FabricBuilder {
 public:
  FabricBuilder(Cluster& c, Graph& g) : c_(c), g_(g) {}
  void build_preset();

 private:
  void add_devices();
  void add_scaleup(bool boards);
  void add_scaleup_mesh();
  void add_package_links();
  void add_scaleout(int rails);

  Cluster& c_;
  Graph& g_;                                   // the graph under construction, handed to the Cluster when complete
  const ClusterPresetInfo* preset_ = nullptr;  // the preset being built (build_preset)
  std::vector<Vertex> devices_;
};

}  // namespace moesim::topology
