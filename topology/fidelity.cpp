#include "topology/fidelity.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "topology/fabric_graph.h"
#include "topology/flow_solver.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

// Route lookup that locks the cache once per source device rather than once per flow.
class Routes {
 public:
  explicit Routes(const Cluster& c) : c_(c) {}
  const Route& operator()(const Flow& f) {
    if (f.src != src_ || f.network != network_)
      from_ = &c_.route_cache().routes_from(c_, f.src, f.network), src_ = f.src, network_ = f.network;
    return (*from_)[static_cast<std::size_t>(f.dst)];
  }

 private:
  const Cluster& c_;
  const std::vector<Route>* from_ = nullptr;
  int src_ = -1;
  bool network_ = false;
};

// Adds every flow's bytes to the links of its route; returns max over links of load / capacity.
double route_loads(const Cluster& cluster, const std::vector<Flow>& flows, std::vector<double>& link_bytes,
                   std::vector<int>* touched = nullptr) {
  std::vector<double> stage(link_bytes.size(), 0.0);
  Routes route(cluster);
  for (const Flow& f : flows) {
    if (f.bytes <= 0 || f.src == f.dst) continue;
    for (const RouteHop& h : route(f).hops) stage[static_cast<std::size_t>(h.link)] += f.bytes * h.fraction;
  }
  double worst = 0;
  for (std::size_t l = 0; l < stage.size(); ++l) {
    if (stage[l] <= 0) continue;
    link_bytes[l] += stage[l];
    if (touched) touched->push_back(static_cast<int>(l));
    worst = std::max(worst, stage[l] / cluster.link_capacity(static_cast<int>(l)));
  }
  return worst * 1e9;
}

class AnalyticFidelity final : public NetworkFidelity {
 public:
  std::string_view name() const override { return "analytic"; }
  bool closed_form() const override { return true; }
  double transfer_ns(const Cluster& cluster, const std::vector<Flow>& flows,
                     std::vector<double>& link_bytes) const override {
    return route_loads(cluster, flows, link_bytes);
  }
};

class FlowFidelity final : public NetworkFidelity {
 public:
  std::string_view name() const override { return "flow"; }
  double transfer_ns(const Cluster& cluster, const std::vector<Flow>& flows,
                     std::vector<double>& link_bytes) const override {
    // The flows share the links of the reduced routes (flow_routes_from) that can bind,
    // renumbered densely as they first appear; every link's load follows from the reduced
    // links' loads (flow_link_shares).
    const auto links = static_cast<std::size_t>(cluster.num_links());
    const std::vector<char> binds = flow_links_that_bind(cluster);
    std::vector<int> dense(links, -1), loaded(links, -1);
    std::vector<double> load;  // per reduced link, numbered as in `loaded`
    FlowProblem p;
    p.bytes.reserve(flows.size());
    p.offset.reserve(flows.size() + 1);
    p.link.reserve(4 * flows.size());
    p.fraction.reserve(4 * flows.size());
    const FlowRoutes* routes = nullptr;
    int src = -1;
    bool network = false;
    for (const Flow& f : flows) {
      if (f.bytes <= 0 || f.src == f.dst) continue;
      if (f.src != src || f.network != network) routes = &flow_routes_from(cluster, src = f.src, network = f.network);
      p.add_flow(f.bytes);
      const auto dst = static_cast<std::size_t>(f.dst);
      for (int k = routes->offset[dst]; k < routes->offset[dst + 1]; ++k) {
        const RouteHop& h = routes->hops[static_cast<std::size_t>(k)];
        const auto id = static_cast<std::size_t>(h.link);
        if (loaded[id] < 0) {
          loaded[id] = static_cast<int>(load.size());
          load.push_back(0);
        }
        load[static_cast<std::size_t>(loaded[id])] += f.bytes * h.fraction;
        if (!binds[id]) continue;
        if (dense[id] < 0) {
          dense[id] = static_cast<int>(p.capacity.size());
          p.capacity.push_back(flow_link_capacity(cluster, h.link));
        }
        p.add_hop(dense[id], h.fraction);
      }
    }
    const std::vector<LinkShare> shares = flow_link_shares(cluster);
    for (std::size_t l = 0; l < links; ++l) {
      const int k = loaded[static_cast<std::size_t>(shares[l].of)];
      if (k >= 0) link_bytes[l] += shares[l].share * load[static_cast<std::size_t>(k)];
    }
    return max_min_completion_s(p) * 1e9;
  }
};

const AnalyticFidelity kAnalytic;
const FlowFidelity kFlow;

}  // namespace

std::vector<FidelityInfo> network_fidelities() {
  return {{"analytic", "bottleneck link: max over links of load / capacity, plus latency and per-message terms"},
          {"flow", "max-min fair sharing of link capacity along ECMP routes, re-solved as flows finish"}};
}

const NetworkFidelity& analytic_fidelity() { return kAnalytic; }
const NetworkFidelity& flow_fidelity() { return kFlow; }

const NetworkFidelity& find_fidelity(std::string_view name) {
  if (name == kAnalytic.name()) return kAnalytic;
  if (name == kFlow.name()) return kFlow;
  throw TopologyError("unknown network fidelity '" + std::string(name) + "' (valid: analytic, flow)");
}

CommResult run_schedule(const Cluster& cluster, const Schedule& schedule, const NetworkFidelity& fidelity) {
  CommResult r;
  r.link_bytes.assign(static_cast<std::size_t>(cluster.num_links()), 0.0);
  std::vector<double> stage_bytes(r.link_bytes.size());
  double worst_stage = -1;
  const double message_ns = 1e9 / cluster.config().nic_messages_per_s;
  for (const Stage& s : schedule) {
    std::fill(stage_bytes.begin(), stage_bytes.end(), 0.0);
    const double transfer = fidelity.transfer_ns(cluster, s.flows, stage_bytes);
    double latency = 0;
    std::unordered_map<int, double> messages;  // scale-out messages per sender
    Routes route(cluster);
    for (const Flow& f : s.flows) {
      if (f.bytes <= 0 || f.src == f.dst) continue;
      latency = std::max(latency, route(f).latency_ns);
      if (f.messages > 0 && (f.network || !cluster.same_scaleup_domain(f.src, f.dst))) messages[f.src] += f.messages;
    }
    double msg = 0;
    for (const auto& [device, count] : messages) msg = std::max(msg, count * message_ns);
    r.transfer_ns += s.repeat * transfer;
    r.latency_ns += s.repeat * latency * s.latency_hops;
    r.message_ns += s.repeat * msg;
    double top = 0;
    int top_link = -1;
    for (std::size_t l = 0; l < stage_bytes.size(); ++l) {
      if (stage_bytes[l] <= 0) continue;
      r.link_bytes[l] += s.repeat * stage_bytes[l];
      const double u = stage_bytes[l] / cluster.link_capacity(static_cast<int>(l));
      if (u > top) top = u, top_link = static_cast<int>(l);
    }
    if (top_link >= 0 && s.repeat * transfer > worst_stage) {
      worst_stage = s.repeat * transfer;
      r.bottleneck_link = top_link;
    }
  }
  r.duration_ns = r.transfer_ns + r.latency_ns + r.message_ns;
  summarise_links(cluster, r);
  return r;
}

void summarise_links(const Cluster& cluster, CommResult& r) {
  r.max_scaleup_bytes = r.max_scaleout_bytes = 0;
  for (int l = 0; l < static_cast<int>(r.link_bytes.size()); ++l) {
    const LinkClass c = cluster.link_props(l).cls;
    if (c == LinkClass::kScaleUp)
      r.max_scaleup_bytes = std::max(r.max_scaleup_bytes, r.link_bytes[static_cast<std::size_t>(l)]);
    if (c == LinkClass::kScaleOut)
      r.max_scaleout_bytes = std::max(r.max_scaleout_bytes, r.link_bytes[static_cast<std::size_t>(l)]);
  }
  bottleneck_device(cluster, r);
}

void bottleneck_device(const Cluster& cluster, CommResult& r) {
  r.bottleneck_device = -1;
  if (r.bottleneck_link < 0) return;
  const Graph& g = graph(cluster);
  const Edge e = link_edge(cluster, r.bottleneck_link);
  // A device link, or a NIC link: the device behind the NIC (first device neighbour).
  for (const Vertex v : {boost::source(e, g), boost::target(e, g)}) {
    if (g[v].kind == VertexKind::kDevice) {
      r.bottleneck_device = g[v].index;
      return;
    }
  }
  for (const Vertex v : {boost::source(e, g), boost::target(e, g)})
    if (g[v].kind == VertexKind::kNic)
      for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
        if (g[boost::target(*it, g)].kind == VertexKind::kDevice) {
          r.bottleneck_device = g[boost::target(*it, g)].index;
          return;
        }
}

}  // namespace moesim::topology
