// RoutingSampler::draw_margins: the layer's routing as margins (workloads/routing_margins.h).
#include <algorithm>
#include <stdexcept>

#include "workloads/binomial.h"
#include "workloads/routing_sampler.h"

namespace moesim::workloads {
namespace {

// Nodes of at most this many ranks split each source's internal pairs exactly (one small
// multinomial per source); larger ones split the node's total once (routing_margins.h).
constexpr std::size_t kExactIntraRanks = 6;

}  // namespace

std::int64_t RoutingMargins::received(int dst) const {
  const auto d = static_cast<std::size_t>(dst);
  return self_pairs[d] + received_intra[d] + received_remote[d];
}

int RoutingTargets::nodes() const {
  int n = 1;
  for (const int r : rank_node) n = std::max(n, r + 1);
  return n;
}

int RoutingTargets::node_of(int rank) const {
  return rank_node.empty() ? 0 : rank_node[static_cast<std::size_t>(rank)];
}

void aggregate_margins(const LayerCounts& c, const RoutingTargets& t, RoutingMargins& out) {
  const int D = c.ranks, N = t.nodes();
  const auto NN = static_cast<std::size_t>(N);
  out.ranks = D;
  out.nodes = N;
  out.source_pairs.assign(static_cast<std::size_t>(D), 0);
  out.own_node_pairs.assign(static_cast<std::size_t>(D), 0);
  out.block_pairs.assign(NN * NN, 0);
  out.node_pairs.assign(static_cast<std::size_t>(D) * NN, 0);
  out.self_pairs.assign(static_cast<std::size_t>(D), 0);
  out.received_intra.assign(static_cast<std::size_t>(D), 0);
  out.received_remote.assign(static_cast<std::size_t>(D), 0);
  for (int s = 0; s < D; ++s)
    for (int d = 0; d < D; ++d) {
      const std::int64_t p = c.pair(s, d);
      if (p == 0) continue;
      const auto si = static_cast<std::size_t>(s), di = static_cast<std::size_t>(d);
      const auto ns = static_cast<std::size_t>(t.node_of(s)), nd = static_cast<std::size_t>(t.node_of(d));
      out.source_pairs[si] += p;
      out.node_pairs[si * NN + nd] += p;
      if (ns == nd)
        out.own_node_pairs[si] += p;
      else
        out.block_pairs[ns * NN + nd] += p;
      if (s == d)
        out.self_pairs[si] += p;
      else
        (ns == nd ? out.received_intra : out.received_remote)[di] += p;
    }
  out.slot_counts = c.slot_counts;
  out.expert_counts = c.expert_counts;
  // The realised shares stand in for the model's (a trace has no model distribution).
  std::int64_t total = 0;
  for (int d = 0; d < D; ++d) total += out.received(d);
  out.rank_mass.assign(static_cast<std::size_t>(D), 0.0);
  out.node_mass.assign(NN, 0.0);
  for (int d = 0; d < D && total > 0; ++d) {
    const double m = static_cast<double>(out.received(d)) / static_cast<double>(total);
    out.rank_mass[static_cast<std::size_t>(d)] = m;
    out.node_mass[static_cast<std::size_t>(t.node_of(d))] += m;
  }
}

// Virtual classes and rows (routing_margins.h): without a group limit a row is a source and its
// class; with one, a source's pairs first pick groups (exact, as in `grouped`), and each
// (source, group) is a row of the virtual class (class, group), whose slot weights are the
// class's restricted to the group. Everything after treats rows alike.
void RoutingSampler::virtual_rows(std::span<const std::int64_t> tokens, const RoutingTargets& t, Rng& rng) {
  const auto D = static_cast<std::size_t>(t.ranks), slots = t.slot_rank.size();
  const auto C = static_cast<std::size_t>(t.classes);
  const auto g = model_.group_limit();
  const std::size_t G = g ? static_cast<std::size_t>(g->groups) : 1;
  const std::size_t V = C * G;
  vw_.assign(V * slots, 0.0);
  const int group_size = g ? experts_ / g->groups : experts_;
  for (std::size_t c = 0; c < C; ++c) {
    std::vector<double> mass(G, 0.0);
    for (std::size_t j = 0; j < slots; ++j) mass[static_cast<std::size_t>(t.slot_expert[j] / group_size)] += w_[c * slots + j];
    for (std::size_t j = 0; j < slots; ++j) {
      const auto k = static_cast<std::size_t>(t.slot_expert[j] / group_size);
      if (mass[k] > 0) vw_[(c * G + k) * slots + j] = w_[c * slots + j] / mass[k];
    }
  }
  row_src_.clear();
  row_class_.clear();
  row_pairs_.clear();
  if (!g) {
    for (std::size_t s = 0; s < D; ++s) {
      row_src_.push_back(s);
      row_class_.push_back(t.source_class[s]);
      row_pairs_.push_back(tokens[s] * top_k_);
    }
    return;
  }
  // Each token picks M groups by group mass (i.i.d. selections, as in `grouped`); each selection
  // carries k / M pairs, the remainder of k mod M following the selections.
  const int M = std::min(g->top_groups, top_k_);
  const std::int64_t base = top_k_ / M, extra = top_k_ % M;
  group_mass_.assign(G, 0.0);
  for (std::size_t e = 0; e < probs_.size(); ++e) group_mass_[e / static_cast<std::size_t>(group_size)] += probs_[e];
  double total = 0;
  for (const double m : group_mass_) total += m;
  for (double& m : group_mass_) m /= total;
  totals_.resize(D);
  for (std::size_t s = 0; s < D; ++s) totals_[s] = tokens[s] * M;
  zero_class_.assign(D, 0);
  selections_.resize(D * G);
  rows_.draw(totals_, zero_class_, group_mass_, static_cast<int>(G), rng, selections_);
  std::vector<std::int64_t> ext(G);
  std::vector<double> sel_w(G);
  for (std::size_t s = 0; s < D; ++s) {
    const std::int64_t* sel = selections_.data() + s * G;
    std::fill(ext.begin(), ext.end(), 0);
    if (extra > 0 && tokens[s] > 0) {
      for (std::size_t k = 0; k < G; ++k) sel_w[k] = static_cast<double>(sel[k]);
      sample_multinomial(tokens[s] * extra, sel_w, rng, ext);
    }
    for (std::size_t k = 0; k < G; ++k) {
      const std::int64_t pairs = base * sel[k] + ext[k];
      if (pairs == 0) continue;
      row_src_.push_back(s);
      row_class_.push_back(static_cast<int>(static_cast<std::size_t>(t.source_class[s]) * G + k));
      row_pairs_.push_back(pairs);
    }
  }
}

void RoutingSampler::draw_margins(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                                  const RoutingTargets& t, Rng& rng, RoutingMargins& out, bool per_source_nodes) {
  if (!t.rank_node.empty() && t.rank_node.size() != static_cast<std::size_t>(t.ranks))
    throw std::invalid_argument("routing targets: one node per rank expected");
  if (const auto trace = model_.trace_tokens(moe_layer, step); trace && !trace->ids.empty()) {
    draw(moe_layer, step, tokens, t, rng, full_);
    aggregate_margins(full_, t, out);
    return;
  }
  check(t);
  if (tokens.size() != static_cast<std::size_t>(t.ranks))
    throw std::invalid_argument("routing sampler: one token count per source rank expected");
  load_probs(moe_layer, step);
  class_weights(t);
  virtual_rows(tokens, t, rng);

  const auto D = static_cast<std::size_t>(t.ranks), N = static_cast<std::size_t>(t.nodes());
  const auto slots = t.slot_rank.size(), V = vw_.size() / std::max<std::size_t>(slots, 1);
  const std::size_t R = row_src_.size();
  out.ranks = t.ranks;
  out.nodes = static_cast<int>(N);
  out.source_pairs.resize(D);
  out.own_node_pairs.assign(D, 0);
  out.self_pairs.assign(D, 0);
  out.received_intra.assign(D, 0);
  out.received_remote.assign(D, 0);
  out.slot_counts.assign(slots, 0);
  out.expert_counts.assign(static_cast<std::size_t>(experts_), 0);
  for (std::size_t s = 0; s < D; ++s) out.source_pairs[s] = tokens[s] * top_k_;

  // Rank and node masses per virtual class, and each node's ranks.
  vq_.assign(V * D, 0.0);
  node_q_.assign(V * N, 0.0);
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t j = 0; j < slots; ++j) vq_[v * D + static_cast<std::size_t>(t.slot_rank[j])] += vw_[v * slots + j];
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t d = 0; d < D; ++d) node_q_[v * N + static_cast<std::size_t>(t.node_of(static_cast<int>(d)))] += vq_[v * D + d];
  node_first_.assign(N + 1, 0);
  for (std::size_t d = 0; d < D; ++d) ++node_first_[static_cast<std::size_t>(t.node_of(static_cast<int>(d))) + 1];
  for (std::size_t n = 0; n < N; ++n) node_first_[n + 1] += node_first_[n];
  node_ranks_.resize(D);
  {
    auto next = node_first_;
    for (std::size_t d = 0; d < D; ++d) node_ranks_[next[static_cast<std::size_t>(t.node_of(static_cast<int>(d)))]++] = d;
  }

  // Each row's own-node pairs, and what each class sends into every node from elsewhere.
  FastBits bits{rng()};
  remote_.assign(V * N, 0);
  rank_total_.assign(V * D, 0);  // pairs of class v reaching rank d
  row_own_.resize(R);
  if (per_source_nodes) {
    out.node_pairs.assign(D * N, 0);
    out.block_pairs.assign(N * N, 0);
    row_nodes_.resize(R * N);
    rows_.draw(row_pairs_, row_class_, node_q_, static_cast<int>(N), rng, row_nodes_);
    for (std::size_t i = 0; i < R; ++i) {
      const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
      const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
      const std::int64_t* row = row_nodes_.data() + i * N;
      row_own_[i] = row[own];
      for (std::size_t n = 0; n < N; ++n) {
        out.node_pairs[s * N + n] += row[n];
        if (n == own) continue;
        remote_[v * N + n] += row[n];
        out.block_pairs[own * N + n] += row[n];
      }
    }
  } else {
    // Per row only its own-node share; every remote pair then goes to rank d with probability
    // q_d / (1 - Q_own) of its sender's node. Summed over the senders, rank d expects
    // q_d · Σ_{m ≠ node(d)} rem_m / (1 - Q_m) of them: one multinomial per class over the ranks
    // with those weights keeps every mean exact (variance within 1 / (N (N-1) M) for N nodes of
    // M ranks).
    out.node_pairs.clear();
    out.block_pairs.clear();
    block_rem_.assign(V * N, 0);
    for (std::size_t i = 0; i < R; ++i) {
      const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
      const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
      const std::int64_t y = sample_binomial(row_pairs_[i], std::min(1.0, node_q_[v * N + own]), bits);
      row_own_[i] = y;
      block_rem_[v * N + own] += row_pairs_[i] - y;
    }
    sub_.resize(D);
    tmp_.resize(D);
    for (std::size_t v = 0; v < V; ++v) {
      double weight = 0;
      std::int64_t pairs = 0;
      node_w_.assign(N, 0.0);
      for (std::size_t m = 0; m < N; ++m) {
        const std::int64_t rem = block_rem_[v * N + m];
        if (rem == 0) continue;
        node_w_[m] = static_cast<double>(rem) / std::max(1e-300, 1.0 - node_q_[v * N + m]);
        weight += node_w_[m];
        pairs += rem;
      }
      if (pairs == 0) continue;
      for (std::size_t d = 0; d < D; ++d)
        sub_[d] = vq_[v * D + d] * std::max(0.0, weight - node_w_[static_cast<std::size_t>(t.node_of(static_cast<int>(d)))]);
      std::fill(tmp_.begin(), tmp_.end(), 0);
      sample_multinomial(pairs, sub_, bits, tmp_);
      for (std::size_t d = 0; d < D; ++d) {
        out.received_remote[d] += tmp_[d];
        rank_total_[v * D + d] += tmp_[d];
      }
    }
  }
  for (std::size_t i = 0; i < R; ++i) out.own_node_pairs[row_src_[i]] += row_own_[i];

  // Self pairs and internal pairs: exactly per row on small nodes, else per node.
  rest_.assign(V * D, 0);  // [v * D + s]: row (s, v)'s own-node pairs bound for its node's other ranks
  inside_.assign(V * N, 0);
  inside_weight_.assign(V * N, 0.0);
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
    const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
    const std::int64_t y = row_own_[i];
    if (y == 0) continue;
    const double Q = node_q_[v * N + own], q = vq_[v * D + s];
    const std::size_t first = node_first_[own], m = node_first_[own + 1] - first;
    if (m <= kExactIntraRanks) {
      // The row's own-node pairs over the node's ranks, its source included (self pairs).
      sub_.resize(m);
      tmp_.assign(m, 0);
      for (std::size_t k = 0; k < m; ++k) sub_[k] = vq_[v * D + node_ranks_[first + k]];
      sample_multinomial(y, sub_, bits, tmp_);
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t d = node_ranks_[first + k];
        (d == s ? out.self_pairs[s] : out.received_intra[d]) += tmp_[k];
        rank_total_[v * D + d] += tmp_[k];
      }
      continue;
    }
    const std::int64_t self = q <= 0 ? 0 : q >= Q ? y : sample_binomial(y, q / Q, bits);
    out.self_pairs[s] += self;
    rank_total_[v * D + s] += self;
    const std::int64_t rest = y - self;
    rest_[v * D + s] = rest;
    inside_[v * N + own] += rest;
    if (rest > 0) inside_weight_[v * N + own] += static_cast<double>(rest) / (Q - q);
  }

  // Each node's receipts split over its ranks.
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t n = 0; n < N; ++n) {
      const std::size_t first = node_first_[n], m = node_first_[n + 1] - first;
      const double Q = node_q_[v * N + n];
      for (const bool remote : {true, false}) {
        const std::int64_t pairs = remote ? remote_[v * N + n] : inside_[v * N + n];
        if (pairs == 0) continue;
        sub_.resize(m);
        tmp_.assign(m, 0);
        for (std::size_t k = 0; k < m; ++k) {
          const std::size_t d = node_ranks_[first + k];
          const double q = vq_[v * D + d];
          // Pairs from a node's own ranks never go back to their sender: the exact expectation
          // of that exclusion, q_d · Σ_{s≠d} rest_s / (Q − q_s).
          sub_[k] = remote ? q
                           : q * std::max(0.0, inside_weight_[v * N + n] -
                                                   (rest_[v * D + d] > 0 ? static_cast<double>(rest_[v * D + d]) / (Q - q) : 0.0));
        }
        sample_multinomial(pairs, sub_, bits, tmp_);
        auto& received = remote ? out.received_remote : out.received_intra;
        for (std::size_t k = 0; k < m; ++k) {
          const std::size_t d = node_ranks_[first + k];
          received[d] += tmp_[k];
          rank_total_[v * D + d] += tmp_[k];
        }
      }
    }

  // Each rank's pairs split over its slots.
  slot_first_.assign(D + 1, 0);
  for (const int r : t.slot_rank) ++slot_first_[static_cast<std::size_t>(r) + 1];
  for (std::size_t d = 0; d < D; ++d) slot_first_[d + 1] += slot_first_[d];
  order_.resize(slots);
  {
    auto next = slot_first_;
    for (std::size_t j = 0; j < slots; ++j) order_[next[static_cast<std::size_t>(t.slot_rank[j])]++] = j;
  }
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t d = 0; d < D; ++d) {
      const std::int64_t pairs = rank_total_[v * D + d];
      if (pairs == 0) continue;
      const std::size_t first = slot_first_[d], m = slot_first_[d + 1] - first;
      sub_.resize(m);
      tmp_.assign(m, 0);
      for (std::size_t k = 0; k < m; ++k) sub_[k] = vw_[v * slots + order_[first + k]];
      sample_multinomial(pairs, sub_, bits, tmp_);
      for (std::size_t k = 0; k < m; ++k) out.slot_counts[order_[first + k]] += tmp_[k];
    }
  for (std::size_t j = 0; j < slots; ++j)
    out.expert_counts[static_cast<std::size_t>(t.slot_expert[j])] += out.slot_counts[j];
  model_masses(t, tokens, out);
}

// The model's expected share of all pairs at each rank and node (pair-weighted over classes).
void RoutingSampler::model_masses(const RoutingTargets& t, std::span<const std::int64_t> tokens,
                                  RoutingMargins& out) const {
  const auto D = static_cast<std::size_t>(t.ranks), N = static_cast<std::size_t>(t.nodes());
  std::vector<double> weight(static_cast<std::size_t>(t.classes), 0.0);
  double total = 0;
  for (std::size_t s = 0; s < D; ++s) {
    weight[static_cast<std::size_t>(t.source_class[s])] += static_cast<double>(tokens[s]);
    total += static_cast<double>(tokens[s]);
  }
  out.rank_mass.assign(D, 0.0);
  out.node_mass.assign(N, 0.0);
  if (total <= 0) return;
  for (std::size_t c = 0; c < weight.size(); ++c) {
    double mass = 0;
    for (std::size_t d = 0; d < D; ++d) mass += q_[c * D + d];
    if (mass <= 0 || weight[c] <= 0) continue;
    for (std::size_t d = 0; d < D; ++d) {
      const double m = weight[c] / total * q_[c * D + d] / mass;
      out.rank_mass[d] += m;
      out.node_mass[static_cast<std::size_t>(t.node_of(static_cast<int>(d)))] += m;
    }
  }
}

}  // namespace moesim::workloads
