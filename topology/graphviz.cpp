#include "topology/graphviz.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/graphviz.hpp>

#include "topology/fabric_graph.h"

namespace moesim::topology {
namespace {

std::string gbs(double bytes_per_s) {
  std::ostringstream s;
  s << std::setprecision(4) << bytes_per_s / 1e9 << " GB/s";
  return s.str();
}

// One edge of each full-duplex pair (the lower id), so DOT shows cables, not directions.
struct OneWay {
  const Graph* g = nullptr;
  bool operator()(const Edge& e) const {
    const auto [back, found] = boost::edge(boost::target(e, *g), boost::source(e, *g), *g);
    return !found || (*g)[e].id < (*g)[back].id;
  }
};

}  // namespace

std::string summary(const Cluster& c) {
  const ClusterConfig& cfg = c.config();
  const Graph& g = graph(c);
  std::map<VertexKind, int> kinds;
  for (auto [it, end] = boost::vertices(g); it != end; ++it) ++kinds[g[*it].kind];
  std::ostringstream s;
  s << "cluster " << cfg.preset << ": " << c.num_devices() << " devices in " << c.num_nodes()
    << (c.num_nodes() == 1 ? " scale-up domain" : " scale-up domains") << " of " << cfg.devices_per_node << "\n";
  s << "  vertices: " << kinds[VertexKind::kDevice] << " devices, " << kinds[VertexKind::kScaleUpSwitch]
    << " scale-up switches, " << kinds[VertexKind::kNic] << " NICs, " << kinds[VertexKind::kLeafSwitch] << " leaves, "
    << kinds[VertexKind::kSpineSwitch] << " spines; " << c.num_links() / 2 << " full-duplex links\n";
  if (c.regular()) {
    s << "  scale-up: " << gbs(cfg.scaleup_bytes_per_s) << " per device per direction x " << cfg.scaleup_efficiency
      << " = " << gbs(c.effective_scaleup_bytes_per_s()) << ", latency " << cfg.scaleup_latency_ns / 1e3 << " us\n";
    s << "  scale-out: " << gbs(cfg.nic_bytes_per_s) << " NIC per device x " << cfg.nic_efficiency << " = "
      << gbs(c.effective_nic_bytes_per_s()) << ", latency " << cfg.nic_latency_ns / 1e3 << " us; " << c.leaves().size()
      << (cfg.rails == 0 ? " top-of-rack leaves" : " rail leaves") << ", oversubscription " << cfg.oversubscription
      << ":1\n";
  } else {
    // A custom fabric: its links by class (directed links; a duplex cable counts twice).
    struct Range {
      int links = 0;
      double low = 0, high = 0;  // achievable bytes per second
    };
    std::map<LinkClass, Range> by_class;
    for (int l = 0; l < c.num_links(); ++l) {
      Range& r = by_class[c.link_props(l).cls];
      const double cap = c.link_capacity(l);
      r.low = r.links == 0 ? cap : std::min(r.low, cap);
      r.high = r.links == 0 ? cap : std::max(r.high, cap);
      ++r.links;
    }
    for (const auto& [cls, r] : by_class) {
      s << "  " << to_string(cls) << ": " << r.links << " directed links at " << gbs(r.low);
      if (r.high > r.low) s << " to " << gbs(r.high);
      s << " (line rate x efficiency)\n";
    }
  }
  return s.str();
}

void write_dot(const Cluster& c, std::ostream& out) {
  const Graph& g = graph(c);
  boost::filtered_graph<Graph, OneWay> view(g, OneWay{&g});
  auto vertex_writer = [&](std::ostream& os, Vertex v) {
    const char* shape = g[v].kind == VertexKind::kDevice ? "box"
                        : g[v].kind == VertexKind::kNic  ? "ellipse"
                                                         : "diamond";
    os << "[label=\"" << g[v].name << "\", shape=" << shape << "]";
  };
  auto edge_writer = [&](std::ostream& os, Edge e) {
    os << "[label=\"" << gbs(g[e].bytes_per_s) << "\", dir=none, class=\"" << to_string(g[e].cls) << "\"]";
  };
  boost::write_graphviz(out, view, vertex_writer, edge_writer);
}

}  // namespace moesim::topology
