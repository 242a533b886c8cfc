#include "topology/routing.h"

#include "topology/fabric_graph.h"
#include "topology/rank_layout.h"

#include <algorithm>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

namespace moesim::topology {
namespace {

enum class Scope { kScaleUp, kScaleOut, kAny };

struct LinkFilter {
  const Graph* g = nullptr;
  Scope scope = Scope::kAny;
  bool operator()(const Edge& e) const {
    if (scope == Scope::kAny) return true;
    return ((*g)[e].cls == LinkClass::kScaleUp) == (scope == Scope::kScaleUp);
  }
};

// Hop distances and shortest-path counts from one source over the links `scope` allows.
struct Tree {
  std::vector<int> dist;
  std::vector<double> paths;
};

struct Recorder : boost::default_bfs_visitor {
  Tree* t;
  explicit Recorder(Tree* tree) : t(tree) {}
  template <class E, class G>
  void tree_edge(const E& e, const G& g) const {
    t->dist[boost::target(e, g)] = t->dist[boost::source(e, g)] + 1;
  }
};

Tree bfs(const Graph& g, Vertex src, Scope scope) {
  Tree t;
  const std::size_t n = boost::num_vertices(g);
  t.dist.assign(n, -1);
  t.paths.assign(n, 0);
  t.dist[src] = 0;
  const LinkFilter filter{&g, scope};
  boost::filtered_graph<Graph, LinkFilter> view(g, filter);
  std::vector<boost::default_color_type> colors(n);
  boost::breadth_first_search(
      view, src,
      boost::visitor(Recorder(&t))
          .color_map(boost::make_iterator_property_map(colors.begin(), boost::get(boost::vertex_index, g))));
  // Path counts in BFS (distance) order.
  std::vector<std::vector<Vertex>> levels;
  for (Vertex v = 0; v < n; ++v)
    if (t.dist[v] >= 0) {
      if (static_cast<std::size_t>(t.dist[v]) >= levels.size()) levels.resize(static_cast<std::size_t>(t.dist[v]) + 1);
      levels[static_cast<std::size_t>(t.dist[v])].push_back(v);
    }
  t.paths[src] = 1;
  for (std::size_t l = 1; l < levels.size(); ++l)
    for (const Vertex v : levels[l])
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        const Vertex u = boost::source(*e, g);
        if (filter(*e) && t.dist[u] == t.dist[v] - 1) t.paths[v] += t.paths[u];
      }
  return t;
}

// Walks the shortest-path DAG back from dst, splitting the flow in proportion to path counts.
Route extract(const Graph& g, const Tree& t, Vertex dst, Scope scope, std::vector<double>& frac) {
  Route r;
  const LinkFilter filter{&g, scope};
  std::vector<Vertex> level{dst}, next;
  frac[dst] = 1;
  std::vector<Vertex> touched{dst};
  while (!level.empty()) {
    next.clear();
    for (const Vertex v : level) {
      for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
        const Vertex u = boost::source(*e, g);
        if (!filter(*e) || t.dist[u] != t.dist[v] - 1 || t.dist[u] < 0) continue;
        const double w = frac[v] * t.paths[u] / t.paths[v];
        r.hops.push_back({g[*e].id, w});
        r.latency_ns += w * g[*e].latency_ns;
        if (frac[u] == 0) next.push_back(u), touched.push_back(u);
        frac[u] += w;
      }
    }
    level.swap(next);
  }
  for (const Vertex v : touched) frac[v] = 0;
  return r;
}

}  // namespace

RouteCache::RouteCache(int num_devices) {
  for (auto& t : table_) t.resize(static_cast<std::size_t>(num_devices));
  for (auto& t : flow_table_) t.resize(static_cast<std::size_t>(num_devices));
}

std::shared_ptr<const RankLayout> RouteCache::layout(const Cluster& cluster, const std::vector<int>& rank_device,
                                                     bool network_only) const {
  {
    const std::lock_guard<std::mutex> lock(layout_mutex_);
    for (auto it = layouts_.rbegin(); it != layouts_.rend(); ++it)
      if ((*it)->device == rank_device && (*it)->network_only() == network_only) {
        std::shared_ptr<const RankLayout> hit = *it;
        layouts_.erase(std::next(it).base());
        layouts_.push_back(hit);
        return hit;
      }
  }
  auto built = std::make_shared<const RankLayout>(cluster, rank_device, network_only);  // outside the lock; may throw
  const std::lock_guard<std::mutex> lock(layout_mutex_);
  if (layouts_.size() == kLayouts) layouts_.erase(layouts_.begin());
  layouts_.push_back(built);
  return built;
}

const Route& RouteCache::route(const Cluster& cluster, int src, int dst) const {
  return routes_from(cluster, src)[static_cast<std::size_t>(dst)];
}

const std::vector<Route>& RouteCache::routes_from(const Cluster& cluster_, int src, bool network) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = table_[network ? 1 : 0][static_cast<std::size_t>(src)];
  if (slot) return *slot;
  const Graph& g = graph(cluster_);
  const Vertex s = device_vertex(cluster_, src);
  auto routes = std::make_unique<std::vector<Route>>(static_cast<std::size_t>(cluster_.num_devices()));
  Tree trees[3];
  bool built[3] = {false, false, false};
  auto tree = [&](Scope scope) -> const Tree& {
    const auto i = static_cast<std::size_t>(scope);
    if (!built[i]) trees[i] = bfs(g, s, scope), built[i] = true;
    return trees[i];
  };
  std::vector<double> frac(boost::num_vertices(g), 0.0);
  for (int d = 0; d < cluster_.num_devices(); ++d) {
    if (d == src) continue;
    const Vertex v = device_vertex(cluster_, d);
    Scope scope = !network && cluster_.same_scaleup_domain(src, d) ? Scope::kScaleUp : Scope::kScaleOut;
    if (tree(scope).dist[v] < 0) scope = Scope::kAny;  // a custom fabric without separate planes
    (*routes)[static_cast<std::size_t>(d)] = extract(g, tree(scope), v, scope, frac);
  }
  slot = std::move(routes);
  return *slot;
}

const FlowRoutes& RouteCache::flow_routes_from(const Cluster& cluster, int src, bool network) const {
  const std::vector<Route>& full = routes_from(cluster, src, network);
  std::lock_guard<std::mutex> lock(mutex_);
  auto& slot = flow_table_[network ? 1 : 0][static_cast<std::size_t>(src)];
  if (slot) return *slot;
  std::vector<int> group(static_cast<std::size_t>(cluster.num_links()));  // the link a link merges into, or -1
  for (int l = 0; l < cluster.num_links(); ++l)
    group[static_cast<std::size_t>(l)] = cluster.regular() && cluster.link_props(l).cls == LinkClass::kHost ? -1 : l;
  for (const LeafLinks& leaf : cluster.leaves())
    for (const auto* side : {&leaf.up, &leaf.down})
      for (const int id : *side) group[static_cast<std::size_t>(id)] = side->front();
  auto routes = std::make_unique<FlowRoutes>();
  routes->offset.reserve(full.size() + 1);
  routes->offset.push_back(0);
  for (const Route& route : full) {
    const auto first = static_cast<std::ptrdiff_t>(routes->hops.size());
    for (const RouteHop& h : route.hops) {
      const int g = group[static_cast<std::size_t>(h.link)];
      if (g < 0) continue;
      const auto same = std::find_if(routes->hops.begin() + first, routes->hops.end(),
                                     [&](const RouteHop& x) { return x.link == g; });
      if (same == routes->hops.end()) {
        routes->hops.push_back({g, h.fraction});
      } else {
        same->fraction += h.fraction;
      }
    }
    routes->offset.push_back(static_cast<int>(routes->hops.size()));
  }
  slot = std::move(routes);
  return *slot;
}

const FlowRoutes& flow_routes_from(const Cluster& cluster, int src_device, bool network) {
  return cluster.route_cache().flow_routes_from(cluster, src_device, network);
}

double flow_link_capacity(const Cluster& cluster, int link) {
  for (const LeafLinks& leaf : cluster.leaves())
    for (const auto* side : {&leaf.up, &leaf.down})
      if (!side->empty() && side->front() == link) {
        double sum = 0;
        for (const int id : *side) sum += cluster.link_capacity(id);
        return sum;
      }
  return cluster.link_capacity(link);
}

std::vector<LinkShare> flow_link_shares(const Cluster& cluster) {
  std::vector<LinkShare> shares(static_cast<std::size_t>(cluster.num_links()));
  for (int l = 0; l < cluster.num_links(); ++l) shares[static_cast<std::size_t>(l)].of = l;
  if (!cluster.regular()) return shares;
  for (const LeafLinks& leaf : cluster.leaves())
    for (const auto* side : {&leaf.up, &leaf.down})
      for (const int id : *side)
        shares[static_cast<std::size_t>(id)] = {side->front(), 1.0 / static_cast<double>(side->size())};
  for (int d = 0; d < cluster.num_devices(); ++d) {
    const DeviceLinks& dl = cluster.device_links(d);
    if (dl.host_out >= 0) shares[static_cast<std::size_t>(dl.host_out)] = {dl.nic_out, 1.0};
    if (dl.host_in >= 0) shares[static_cast<std::size_t>(dl.host_in)] = {dl.nic_in, 1.0};
  }
  return shares;
}

std::vector<char> flow_links_that_bind(const Cluster& cluster) {
  std::vector<char> binds(static_cast<std::size_t>(cluster.num_links()), 1);
  if (!cluster.regular()) return binds;
  const auto& leaves = cluster.leaves();
  std::vector<double> nic_up(leaves.size(), 0.0), nic_down(leaves.size(), 0.0);  // per leaf
  for (int d = 0; d < cluster.num_devices(); ++d) {
    const DeviceLinks& dl = cluster.device_links(d);
    if (dl.leaf < 0) continue;
    if (dl.nic_out >= 0) nic_up[static_cast<std::size_t>(dl.leaf)] += cluster.link_capacity(dl.nic_out);
    if (dl.nic_in >= 0) nic_down[static_cast<std::size_t>(dl.leaf)] += cluster.link_capacity(dl.nic_in);
  }
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    // (To the solver's tie tolerance: the sums may round apart when they are equal.)
    if (!leaves[l].up.empty() && flow_link_capacity(cluster, leaves[l].up.front()) >= nic_up[l] * (1 - 1e-9))
      binds[static_cast<std::size_t>(leaves[l].up.front())] = 0;
    if (!leaves[l].down.empty() && flow_link_capacity(cluster, leaves[l].down.front()) >= nic_down[l] * (1 - 1e-9))
      binds[static_cast<std::size_t>(leaves[l].down.front())] = 0;
  }
  return binds;
}

}  // namespace moesim::topology
