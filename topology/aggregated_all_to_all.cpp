#include "topology/aggregated_all_to_all.h"

#include <string>

#include "topology/a2a_closed_form.h"

namespace moesim::topology {
namespace {

double sum(const double* v, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += v[i];
  return s;
}

}  // namespace

std::vector<int> rank_domains(const Cluster& cluster, const std::vector<int>& rank_device) {
  std::vector<int> dense(static_cast<std::size_t>(cluster.num_nodes()), -1), out;
  int next = 0;
  for (std::size_t r = 0; r < rank_device.size(); ++r) {
    const int d = rank_device[r];
    if (d < 0 || d >= cluster.num_devices())
      throw TopologyError("rank " + std::to_string(r) + " is placed on device " + std::to_string(d) +
                          ", outside the cluster's " + std::to_string(cluster.num_devices()) + " devices");
    int& n = dense[static_cast<std::size_t>(cluster.node_of(d))];
    if (n < 0) n = next++;
    out.push_back(n);
  }
  return out;
}

AggregatedTraffic aggregate_traffic(const Cluster& cluster, const std::vector<int>& rank_device, TrafficView t) {
  const std::vector<int> node = rank_domains(cluster, rank_device);
  const int ranks = static_cast<int>(rank_device.size());
  if (!t.pair || t.pair->ranks() != ranks || t.expert_or_pair().ranks() != ranks)
    throw TopologyError("all-to-all: traffic matrix and rank placement disagree on the rank count");
  int nodes = 0;
  for (const int n : node) nodes = std::max(nodes, n + 1);
  AggregatedTraffic a;
  a.assign(ranks, nodes);
  a.message_bytes = t.message_bytes;
  const auto N = static_cast<std::size_t>(nodes);
  const auto fill = [&](const TrafficMatrix& m, TrafficMargins& out) {
    for (int s = 0; s < ranks; ++s)
      for (int d = 0; d < ranks; ++d) {
        const double b = m.at(s, d);
        if (s == d || b == 0) continue;
        const auto ns = static_cast<std::size_t>(node[static_cast<std::size_t>(s)]);
        const auto nd = static_cast<std::size_t>(node[static_cast<std::size_t>(d)]);
        out.sent_to_node[static_cast<std::size_t>(s) * N + nd] += b;
        (ns == nd ? out.received_intra : out.received_remote)[static_cast<std::size_t>(d)] += b;
      }
  };
  fill(t.expert_or_pair(), a.pairs);
  fill(*t.pair, a.rank_tokens);
  if (t.has_node()) {
    std::vector<int> dense_of(static_cast<std::size_t>(cluster.num_nodes()), -1);
    for (int r = 0; r < ranks; ++r)
      dense_of[static_cast<std::size_t>(cluster.node_of(rank_device[static_cast<std::size_t>(r)]))] =
          node[static_cast<std::size_t>(r)];
    for (int s = 0; s < ranks; ++s)
      for (int c = 0; c < t.node->nodes(); ++c) {
        const double b = t.node->at(s, c);
        if (b == 0) continue;
        const int dense = c < static_cast<int>(dense_of.size()) ? dense_of[static_cast<std::size_t>(c)] : -1;
        if (dense < 0)
          throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(c) + ", which has no rank");
        if (dense != node[static_cast<std::size_t>(s)])
          a.node_tokens.sent_to_node[static_cast<std::size_t>(s) * N + static_cast<std::size_t>(dense)] += b;
      }
  } else {
    a.node_tokens = a.rank_tokens;
  }
  return a;
}

AggregatedAllToAll::AggregatedAllToAll(const Cluster& cluster, const std::vector<int>& rank_device)
    : cluster_(cluster), layout_(cluster, rank_device), rank_node_(rank_domains(cluster, rank_device)) {
  if (!cluster.regular())
    throw TopologyError("aggregated all-to-all needs a preset fabric (a custom fabric is costed flow by flow)");
  for (const int n : rank_node_) nodes_ = std::max(nodes_, n + 1);
  node_ranks_.assign(static_cast<std::size_t>(nodes_), {});
  std::vector<int> cluster_node(static_cast<std::size_t>(nodes_), -1);
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto n = static_cast<std::size_t>(rank_node_[static_cast<std::size_t>(r)]);
    node_ranks_[n].push_back(r);
    cluster_node[n] = layout_.node[static_cast<std::size_t>(r)];
  }
  forwarder_.resize(static_cast<std::size_t>(layout_.ranks) * static_cast<std::size_t>(nodes_));
  for (int s = 0; s < layout_.ranks; ++s)
    for (int n = 0; n < nodes_; ++n)
      forwarder_[static_cast<std::size_t>(s) * static_cast<std::size_t>(nodes_) + static_cast<std::size_t>(n)] =
          layout_.forwarder(s, cluster_node[static_cast<std::size_t>(n)]);
  for (const int l : layout_.leaf) leaf_count_ = std::max(leaf_count_, l + 1);
}

CommResult AggregatedAllToAll::operator()(const AggregatedTraffic& t, const AllToAllOptions& o) const {
  A2aVolumes v;
  CommResult r;
  (*this)(t, o, v, r);
  return r;
}

void AggregatedAllToAll::operator()(const AggregatedTraffic& t, const AllToAllOptions& o, A2aVolumes& v,
                                    CommResult& out) const {
  fill_volumes(t, o, v);
  closed_form_result(cluster_, layout_, v, o, out);
}

void AggregatedAllToAll::timing(const AggregatedTraffic& t, const AllToAllOptions& o, A2aVolumes& v,
                                CommResult& out) const {
  fill_volumes(t, o, v);
  closed_form_timing(cluster_, layout_, v, o, out);
}

void AggregatedAllToAll::links(const A2aVolumes& v, const AllToAllOptions& o, CommResult& out) const {
  closed_form_result(cluster_, layout_, v, o, out);
}

void AggregatedAllToAll::fill_volumes(const AggregatedTraffic& t, const AllToAllOptions& o, A2aVolumes& v) const {
  if (o.fidelity == nullptr || !o.fidelity->closed_form())
    throw TopologyError("aggregated all-to-all: fidelity '" +
                        std::string(o.fidelity ? o.fidelity->name() : std::string_view("none")) +
                        "' needs the full traffic matrix");
  if (!(o.scale >= 0)) throw TopologyError("all-to-all: scale must be non-negative");
  const auto R = static_cast<std::size_t>(layout_.ranks), N = static_cast<std::size_t>(nodes_);
  for (const TrafficMargins* m : {&t.pairs, &t.rank_tokens, &t.node_tokens}) {
    const bool rows_ok = m->factored ? m->sent_own.size() == R && m->sent_remote.size() == R &&
                                           m->spread_weight.size() == N && m->spread_norm.size() == N
                                     : m->sent_to_node.size() == R * N;
    if (t.ranks != layout_.ranks || t.nodes != nodes_ || !rows_ok || m->received_intra.size() != R ||
        m->received_remote.size() != R)
      throw TopologyError("aggregated all-to-all: traffic margins and rank placement disagree on the shape");
  }
  v.reset(layout_.ranks, std::max(static_cast<int>(cluster_.leaves().size()), 1));
  check_network_only(o);
  o.algorithm->aggregated_volumes(*this, t, o, v);
}

void AggregatedAllToAll::direct_volumes(const TrafficMargins& m, double scale, double message_bytes, bool network_only,
                                        A2aVolumes& v) const {
  const int n = layout_.ranks;
  // Factored margins: the share of a sender's remote traffic that leaves its node, per node.
  std::vector<double>& leaving = v.work;
  if (m.factored) {
    const double total = m.spread_total();
    leaving.resize(static_cast<std::size_t>(nodes_));
    for (std::size_t a = 0; a < leaving.size(); ++a) leaving[a] = m.leaving_share(static_cast<int>(a), total);
  }
  for (int s = 0; s < n; ++s) {
    const auto i = static_cast<std::size_t>(s);
    double own_sent, total;
    if (m.factored) {
      own_sent = m.sent_own[i];
      total = own_sent + m.sent_remote[i] * leaving[static_cast<std::size_t>(rank_node_[i])];
    } else {
      const double* row = m.sent_to_node.data() + i * static_cast<std::size_t>(nodes_);
      own_sent = row[rank_node_[i]];
      total = sum(row, nodes_);
    }
    const double own = network_only ? 0.0 : own_sent;
    // A rounding residue of the row's total is nothing (no byte leaves the domain).
    const double left = total - own;
    const double up = own * scale, out = (left > 1e-9 * total ? left : 0.0) * scale;
    v.up_send[i] = up;
    v.out_send[i] = out;
    if (message_bytes > 0) v.messages[i] = out / message_bytes;
    v.any_up = v.any_up || up > 0;
    v.any_out = v.any_out || out > 0;
  }
  for (int d = 0; d < n; ++d) {
    const auto i = static_cast<std::size_t>(d);
    v.up_recv[i] = network_only ? 0.0 : m.received_intra[i] * scale;
    v.out_recv[i] = (network_only ? m.received_intra[i] + m.received_remote[i] : m.received_remote[i]) * scale;
    if (message_bytes > 0) v.messages_in[i] = v.out_recv[i] / message_bytes;
    v.any_up = v.any_up || v.up_recv[i] > 0;
    v.any_out = v.any_out || v.out_recv[i] > 0;
  }
  leaves(m, scale, v);
  if (network_only) own_node_leaves(m, scale, v);
}

// Pairs inside a node sent over the network (network_only): a sender's internal pairs land on
// its node peers in proportion to their internal receipts, so the part off its leaf is the
// off-leaf peers' share of the node's internal receipts less its own; a receiver's came from
// its peers in proportion to their internal sends. (Conditional expectations given the
// margins, as for the pairs between nodes; with no receipts to weigh by, the peers count alike.)
void AggregatedAllToAll::own_node_leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const {
  if (leaf_count_ == 0) return;
  const auto L = static_cast<std::size_t>(leaf_count_), N = static_cast<std::size_t>(nodes_);
  v.work.assign(3 * N * L + 3 * N, 0.0);
  double* recv_on = v.work.data();    // [n * L + l] internal receipts of node n's ranks on leaf l
  double* sent_on = recv_on + N * L;  // likewise internal sends
  double* ranks_on = sent_on + N * L;
  double* recv_total = ranks_on + N * L;
  double* sent_total = recv_total + N;
  double* ranks_total = sent_total + N;
  const auto own_sent = [&](std::size_t i) {
    return m.factored ? m.sent_own[i] : m.sent_to_node[i * N + static_cast<std::size_t>(rank_node_[i])];
  };
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    if (l < 0) continue;
    const auto n = static_cast<std::size_t>(rank_node_[i]), k = n * L + static_cast<std::size_t>(l);
    recv_on[k] += m.received_intra[i];
    sent_on[k] += own_sent(i);
    ranks_on[k] += 1;
    recv_total[n] += m.received_intra[i];
    sent_total[n] += own_sent(i);
    ranks_total[n] += 1;
  }
  // The share of a weight over node n's ranks other than rank i that sits off leaf l (i on l).
  const auto off_leaf = [&](const double* on, const double* total, double own, std::size_t n, std::size_t l) {
    const std::size_t k = n * L + l;
    if (total[n] - own > 0) return std::max(0.0, (total[n] - on[k]) / (total[n] - own));
    return ranks_total[n] > 1 ? (ranks_total[n] - ranks_on[k]) / (ranks_total[n] - 1) : 0.0;
  };
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    if (l < 0) continue;
    const auto li = static_cast<std::size_t>(l), n = static_cast<std::size_t>(rank_node_[i]);
    const double up = own_sent(i) * off_leaf(recv_on, recv_total, m.received_intra[i], n, li);
    const double down = m.received_intra[i] * off_leaf(sent_on, sent_total, own_sent(i), n, li);
    v.leaf_up[li] += up * scale;
    v.leaf_down[li] += down * scale;
    v.any_cross_leaf = v.any_cross_leaf || up > 0 || down > 0;
  }
}

// Cross-leaf volumes at their conditional expectation given the margins (see the header).
void AggregatedAllToAll::leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const {
  if (leaf_count_ == 0) return;
  if (m.factored) {
    factored_leaves(m, scale, v);
    return;
  }
  const auto L = static_cast<std::size_t>(leaf_count_), N = static_cast<std::size_t>(nodes_);
  // One buffer: per (node, leaf) receipts and ranks; per (leaf, node) what the leaf's ranks send
  // into the node (rows by leaf, so that each rank adds its row in one contiguous pass); per
  // node totals; per (leaf, node) the crossing fractions.
  v.work.assign(4 * N * L + 2 * N, 0.0);
  double* recv = v.work.data();
  double* sent = recv + N * L;  // [l * N + b]
  double* ranks_on = sent + N * L;
  double* cross = ranks_on + N * L;  // [l * N + b]
  double* recv_total = cross + N * L;
  double* sent_total = recv_total + N;
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    const auto n = static_cast<std::size_t>(rank_node_[i]);
    if (l < 0) continue;
    recv[n * L + static_cast<std::size_t>(l)] += m.received_remote[i];
    recv_total[n] += m.received_remote[i];
    ranks_on[n * L + static_cast<std::size_t>(l)] += 1;
    const double* row = m.sent_to_node.data() + i * N;
    double* to = sent + static_cast<std::size_t>(l) * N;
    for (std::size_t b = 0; b < n; ++b) to[b] += row[b];  // all but the sender's own node
    for (std::size_t b = n + 1; b < N; ++b) to[b] += row[b];
  }
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t b = 0; b < N; ++b) sent_total[b] += sent[l * N + b];
  // cross[l * N + b]: the part of what node b receives that lands off leaf l.
  for (std::size_t b = 0; b < N; ++b)
    for (std::size_t l = 0; l < L; ++l) {
      const std::size_t i = b * L + l;
      cross[l * N + b] = 1.0 - (recv_total[b] > 0 ? recv[i] / recv_total[b]
                                                  : ranks_on[i] / static_cast<double>(node_ranks_[b].size()));
    }
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    if (l < 0) continue;
    const auto li = static_cast<std::size_t>(l);
    const auto n = static_cast<std::size_t>(rank_node_[i]);
    const double* row = m.sent_to_node.data() + i * N;
    const double* off_leaf = cross + li * N;
    double lanes[4] = {0, 0, 0, 0};  // four chains of additions instead of one
    std::size_t b = 0;
    for (; b + 4 <= N; b += 4)
      for (std::size_t j = 0; j < 4; ++j) lanes[j] += row[b + j] * off_leaf[b + j];
    for (; b < N; ++b) lanes[0] += row[b] * off_leaf[b];
    double up = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    up -= row[n] * off_leaf[n];  // the sender's own node is not crossed
    const double same_in = sent_total[n] > 0 ? sent[li * N + n] / sent_total[n] : 0.0;
    const double down = m.received_remote[i] * (1.0 - same_in);
    v.leaf_up[li] += up * scale;
    v.leaf_down[li] += down * scale;
    v.any_cross_leaf = v.any_cross_leaf || up > 0 || down > 0;
  }
}

// The same expectations for factored margins, where a sender s on node a sends
// remote_s · u_b / d_a into each other node b (traffic.h), without forming the rows: with
// R_al = Σ_{s on (a, l)} remote_s, what leaf l's ranks send into node b is
// u_b (Σ_a R_al / d_a − R_bl / d_b), and a sender's off-leaf share is
// D_al = (Σ_b u_b c_lb − u_a c_la) / d_a, c_lb being the part of node b's receipts off leaf l.
// O(ranks + nodes x leaves) instead of O(ranks x nodes).
void AggregatedAllToAll::factored_leaves(const TrafficMargins& m, double scale, A2aVolumes& v) const {
  const auto L = static_cast<std::size_t>(leaf_count_), N = static_cast<std::size_t>(nodes_);
  v.work.assign(6 * N * L + 3 * N + L, 0.0);
  double* recv = v.work.data();          // [n * L + l] remote receipts of node n's ranks on leaf l
  double* ranks_on = recv + N * L;       // [n * L + l]
  double* remote_on = ranks_on + N * L;  // [a * L + l] R_al
  double* sent = remote_on + N * L;      // [l * N + b]
  double* cross = sent + N * L;          // [l * N + b]
  double* off_leaf = cross + N * L;      // [a * L + l] D_al
  double* recv_total = off_leaf + N * L;
  double* sent_total = recv_total + N;
  double* per_norm = sent_total + N;  // [l]: Σ_a R_al / d_a
  double* inv_norm = per_norm + L;    // [a]: 1 / d_a, 0 for a node nothing leaves
  for (std::size_t a = 0; a < N; ++a) inv_norm[a] = m.spread_norm[a] > 0 ? 1.0 / m.spread_norm[a] : 0.0;
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    if (l < 0) continue;
    const std::size_t k = static_cast<std::size_t>(rank_node_[i]) * L + static_cast<std::size_t>(l);
    recv[k] += m.received_remote[i];
    recv_total[static_cast<std::size_t>(rank_node_[i])] += m.received_remote[i];
    ranks_on[k] += 1;
    remote_on[k] += m.sent_remote[i];
  }
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t l = 0; l < L; ++l) per_norm[l] += remote_on[a * L + l] * inv_norm[a];
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t b = 0; b < N; ++b) {
      const double into = m.spread_weight[b] * std::max(0.0, per_norm[l] - remote_on[b * L + l] * inv_norm[b]);
      sent[l * N + b] = into;
      sent_total[b] += into;
      const std::size_t i = b * L + l;
      cross[l * N + b] = 1.0 - (recv_total[b] > 0 ? recv[i] / recv_total[b]
                                                  : ranks_on[i] / static_cast<double>(node_ranks_[b].size()));
    }
  for (std::size_t l = 0; l < L; ++l) {
    double weighted = 0;  // Σ_b u_b c_lb
    for (std::size_t b = 0; b < N; ++b) weighted += m.spread_weight[b] * cross[l * N + b];
    for (std::size_t a = 0; a < N; ++a)
      off_leaf[a * L + l] = std::max(0.0, weighted - m.spread_weight[a] * cross[l * N + a]) * inv_norm[a];
  }
  for (int r = 0; r < layout_.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int l = layout_.leaf[i];
    if (l < 0) continue;
    const auto li = static_cast<std::size_t>(l), n = static_cast<std::size_t>(rank_node_[i]);
    const double up = m.sent_remote[i] * off_leaf[n * L + li];
    const double same_in = sent_total[n] > 0 ? sent[li * N + n] / sent_total[n] : 0.0;
    const double down = m.received_remote[i] * (1.0 - same_in);
    v.leaf_up[li] += up * scale;
    v.leaf_down[li] += down * scale;
    v.any_cross_leaf = v.any_cross_leaf || up > 0 || down > 0;
  }
}

// DeepEP normal mode: the network hop once per (token, node) to the same-rail forwarder, which
// fans the token out over the scale-up fabric; traffic inside the sender's node goes direct.
void AggregatedAllToAll::hierarchical_volumes(const AggregatedTraffic& t, double scale, A2aVolumes& v) const {
  const int n = layout_.ranks;
  const auto N = static_cast<std::size_t>(nodes_);
  std::vector<double> relay(static_cast<std::size_t>(n), 0.0);  // rank-token units each rank relays
  for (int s = 0; s < n; ++s) {
    const auto i = static_cast<std::size_t>(s);
    const auto own = static_cast<std::size_t>(rank_node_[i]);
    const double intra = t.rank_tokens.sent_to_node[i * N + own] * scale;
    v.up_send[i] += intra;
    v.any_up = v.any_up || intra > 0;
    for (std::size_t b = 0; b < N; ++b) {
      if (b == own) continue;
      const double w = t.node_tokens.sent_to_node[i * N + b] * scale;
      if (w <= 0) continue;
      const int f = forwarder_[i * N + b];
      if (f < 0)
        throw TopologyError("hierarchical all-to-all: traffic to node " + std::to_string(b) + ", which has no rank");
      const auto fi = static_cast<std::size_t>(f);
      v.out_send[i] += w;
      v.out_recv[fi] += w;
      v.any_out = true;
      relay[fi] += t.rank_tokens.sent_to_node[i * N + b];
      const int ls = layout_.leaf[i], lf = layout_.leaf[fi];
      if (ls >= 0 && lf >= 0 && ls != lf) {
        v.leaf_up[static_cast<std::size_t>(ls)] += w;
        v.leaf_down[static_cast<std::size_t>(lf)] += w;
        v.any_cross_leaf = true;
      }
    }
  }
  for (int d = 0; d < n; ++d) {
    const double intra = t.rank_tokens.received_intra[static_cast<std::size_t>(d)] * scale;
    v.up_recv[static_cast<std::size_t>(d)] += intra;
    v.any_up = v.any_up || intra > 0;
  }
  // Each forwarder relays to every other rank of its node in proportion to its share of the
  // node's relayed tokens.
  for (const auto& ranks : node_ranks_) {
    double relayed = 0, received = 0;
    for (const int r : ranks) {
      relayed += relay[static_cast<std::size_t>(r)];
      received += t.rank_tokens.received_remote[static_cast<std::size_t>(r)];
    }
    if (relayed <= 0 || received <= 0) continue;
    for (const int r : ranks) {
      const auto i = static_cast<std::size_t>(r);
      const double share = relay[i] / relayed, in = t.rank_tokens.received_remote[i];
      const double sent = share * (received - in) * scale, got = in * (1.0 - share) * scale;
      v.up_send[i] += sent;
      v.up_recv[i] += got;
      v.any_up = v.any_up || sent > 0 || got > 0;
    }
  }
}

}  // namespace moesim::topology
