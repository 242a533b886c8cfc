#include "topology/moe_traffic.h"

#include <cmath>
#include <string>

namespace moesim::topology {
namespace {

// C(a, k) / C(c, k) for real a <= c (0 when fewer than k remain).
double choose_ratio(double a, double c, int k) {
  double r = 1;
  for (int i = 0; i < k; ++i) {
    if (a - i <= 0) return 0;
    r *= (a - i) / (c - i);
  }
  return r;
}

double choose(int n, int k) {
  if (k < 0 || k > n) return 0;
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0));
}

}  // namespace

double hit_probability(const MoeRouting& m, int q, double x) {
  const int k = m.top_k;
  if (m.groups <= 0 || m.top_groups >= m.groups) return 1 - choose_ratio(m.experts - q * x, m.experts, k);
  const int G = m.groups, g = m.top_groups;
  const double per = static_cast<double>(m.experts) / G, M = g * per;
  double miss = 0;
  for (int j = 0; j <= std::min(q, g); ++j) {  // j of the set's q groups chosen (hypergeometric)
    const double pj = choose(q, j) * choose(G - q, g - j) / choose(G, g);
    if (pj <= 0) continue;
    const double first = std::pow(1 - x / per, j);  // each chosen group's best expert misses the set
    miss += pj * first * choose_ratio(M - g - j * x, M - g, k - g);
  }
  return 1 - miss;
}

AllToAllTraffic expected_moe_traffic(const Cluster& cluster, const std::vector<int>& rank_device, const MoeRouting& m) {
  const int n = static_cast<int>(rank_device.size());
  if (n < 1 || m.experts < n || m.experts % n != 0)
    throw TopologyError(std::to_string(m.experts) + " experts do not divide evenly over " + std::to_string(n) +
                        " ranks");
  if (m.top_k < 1 || m.top_k > m.experts) throw TopologyError("top-k must lie in [1, experts]");
  if (m.groups > 0 &&
      (m.experts % m.groups != 0 || m.top_groups < 1 || m.top_groups > m.groups || m.top_groups > m.top_k))
    throw TopologyError(
        "group-limited routing needs groups dividing the experts and 1 <= top_groups <= min(groups, top_k)");
  const int per_rank = m.experts / n;
  const double per_group = m.groups > 0 ? static_cast<double>(m.experts) / m.groups : m.experts;
  // A set of e contiguous experts starting at expert `first` spans q groups with about e/q each.
  auto span = [&](int first, int e, int& q, double& x) {
    const int g0 = static_cast<int>(first / per_group), g1 = static_cast<int>((first + e - 1) / per_group);
    q = m.groups > 0 ? g1 - g0 + 1 : 1;
    x = static_cast<double>(e) / q;
  };
  AllToAllTraffic t;
  t.pair_bytes = TrafficMatrix(n);
  t.expert_bytes = TrafficMatrix(n);
  t.node_bytes = NodeTrafficMatrix(n, cluster.num_nodes());
  std::vector<double> p_rank(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) {
    int q;
    double x;
    span(d * per_rank, per_rank, q, x);
    p_rank[static_cast<std::size_t>(d)] = hit_probability(m, q, x);
  }
  // Experts per node (ranks of a node need not be contiguous; count them).
  std::vector<int> node_first(static_cast<std::size_t>(cluster.num_nodes()), -1), node_count(node_first.size(), 0);
  for (int d = 0; d < n; ++d) {
    const auto b = static_cast<std::size_t>(cluster.node_of(rank_device[static_cast<std::size_t>(d)]));
    if (node_first[b] < 0) node_first[b] = d * per_rank;
    node_count[b] += per_rank;
  }
  std::vector<double> p_node(node_first.size(), 0.0);
  for (std::size_t b = 0; b < node_first.size(); ++b) {
    if (node_count[b] == 0) continue;
    int q;
    double x;
    span(node_first[b], node_count[b], q, x);
    p_node[b] = hit_probability(m, q, x);
  }
  const double tokens = m.tokens_per_rank;
  for (int s = 0; s < n; ++s) {
    for (int d = 0; d < n; ++d) {
      t.pair_bytes.at(s, d) = tokens * p_rank[static_cast<std::size_t>(d)];
      t.expert_bytes.at(s, d) = tokens * m.top_k * per_rank / static_cast<double>(m.experts);
    }
    for (std::size_t b = 0; b < p_node.size(); ++b) t.node_bytes.at(s, static_cast<int>(b)) = tokens * p_node[b];
  }
  return t;
}

}  // namespace moesim::topology
