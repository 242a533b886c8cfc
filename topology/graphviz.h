// Views of a Cluster for people: a one-paragraph summary and Graphviz DOT (Boost.Graph's
// write_graphviz; one undirected edge per full-duplex link, labelled with its bandwidth).
#pragma once

#include <ostream>
#include <string>

#include "topology/cluster.h"

namespace moesim::topology {

std::string summary(const Cluster& cluster);
void write_dot(const Cluster& cluster, std::ostream& out);

}  // namespace moesim::topology
