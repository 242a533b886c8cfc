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

void RoutingSampler::draw_margins(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                                  const RoutingTargets& t, Rng& rng, RoutingMargins& out, bool per_source_nodes) {
  if (!t.rank_node.empty() && t.rank_node.size() != static_cast<std::size_t>(t.ranks))
    throw std::invalid_argument("routing targets: one node per rank expected");
  const auto trace = model_.trace_tokens(moe_layer, step);
  if ((trace && !trace->ids.empty()) || model_.group_limit()) {
    draw(moe_layer, step, tokens, t, rng, full_);
    aggregate_margins(full_, t, out);
    if (!(trace && !trace->ids.empty())) model_masses(t, tokens, out);
    return;
  }
  check(t);
  if (tokens.size() != static_cast<std::size_t>(t.ranks))
    throw std::invalid_argument("routing sampler: one token count per source rank expected");
  load_probs(moe_layer, step);
  class_weights(t);

  const auto D = static_cast<std::size_t>(t.ranks), N = static_cast<std::size_t>(t.nodes());
  const auto C = static_cast<std::size_t>(t.classes), slots = t.slot_rank.size();
  out.ranks = t.ranks;
  out.nodes = static_cast<int>(N);
  out.source_pairs.resize(D);
  out.own_node_pairs.resize(D);
  out.block_pairs.assign(N * N, 0);
  out.self_pairs.assign(D, 0);
  out.received_intra.assign(D, 0);
  out.received_remote.assign(D, 0);
  out.slot_counts.assign(slots, 0);
  out.expert_counts.assign(static_cast<std::size_t>(experts_), 0);

  // Node masses per class, and each node's ranks.
  node_q_.assign(C * N, 0.0);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t d = 0; d < D; ++d) node_q_[c * N + static_cast<std::size_t>(t.node_of(static_cast<int>(d)))] += q_[c * D + d];
  node_first_.assign(N + 1, 0);
  for (std::size_t d = 0; d < D; ++d) ++node_first_[static_cast<std::size_t>(t.node_of(static_cast<int>(d))) + 1];
  for (std::size_t n = 0; n < N; ++n) node_first_[n + 1] += node_first_[n];
  node_ranks_.resize(D);
  {
    auto next = node_first_;
    for (std::size_t d = 0; d < D; ++d) node_ranks_[next[static_cast<std::size_t>(t.node_of(static_cast<int>(d)))]++] = d;
  }
  for (std::size_t s = 0; s < D; ++s) out.source_pairs[s] = tokens[s] * top_k_;

  // What each class sends into every node from elsewhere.
  remote_.assign(C * N, 0);
  if (per_source_nodes) {
    out.node_pairs.resize(D * N);
    rows_.draw(out.source_pairs, t.source_class, node_q_, static_cast<int>(N), rng, out.node_pairs);
    for (std::size_t s = 0; s < D; ++s) {
      const auto c = static_cast<std::size_t>(t.source_class[s]);
      const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
      const std::int64_t* row = out.node_pairs.data() + s * N;
      out.own_node_pairs[s] = row[own];
      for (std::size_t n = 0; n < N; ++n)
        if (n != own) {
          remote_[c * N + n] += row[n];
          out.block_pairs[own * N + n] += row[n];
        }
    }
  } else {
    out.node_pairs.clear();
    block_rem_.assign(C * N, 0);
    for (std::size_t s = 0; s < D; ++s) {
      const auto c = static_cast<std::size_t>(t.source_class[s]);
      const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
      const std::int64_t n = out.source_pairs[s];
      const std::int64_t y = sample_binomial(n, std::min(1.0, node_q_[c * N + own]), rng);
      out.own_node_pairs[s] = y;
      block_rem_[c * N + own] += n - y;
    }
    // A remote pair goes to node n with probability Q_n / (1 - Q_own), whichever source sent it.
    sub_.resize(N);
    tmp_.resize(N);
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t m = 0; m < N; ++m) {
        const std::int64_t pairs = block_rem_[c * N + m];
        if (pairs == 0) continue;
        for (std::size_t n = 0; n < N; ++n) sub_[n] = n == m ? 0.0 : node_q_[c * N + n];
        std::fill(tmp_.begin(), tmp_.end(), 0);
        sample_multinomial(pairs, sub_, rng, tmp_);
        for (std::size_t n = 0; n < N; ++n) {
          remote_[c * N + n] += tmp_[n];
          out.block_pairs[m * N + n] += tmp_[n];
        }
      }
  }

  // Self pairs and internal pairs: exactly per source on small nodes, else per node.
  rank_total_.assign(C * D, 0);   // pairs of class c reaching rank d
  rest_.assign(C * D, 0);         // [c * D + s]: source s's own-node pairs bound for its other ranks
  inside_.assign(C * N, 0);
  inside_weight_.assign(C * N, 0.0);
  for (std::size_t s = 0; s < D; ++s) {
    const auto c = static_cast<std::size_t>(t.source_class[s]);
    const auto own = static_cast<std::size_t>(t.node_of(static_cast<int>(s)));
    const std::int64_t y = out.own_node_pairs[s];
    if (y == 0) continue;
    const double Q = node_q_[c * N + own], q = q_[c * D + s];
    const std::size_t first = node_first_[own], m = node_first_[own + 1] - first;
    if (m <= kExactIntraRanks) {
      // The source's own-node pairs over the node's ranks, itself included (its self pairs).
      sub_.resize(m);
      tmp_.assign(m, 0);
      for (std::size_t i = 0; i < m; ++i) sub_[i] = q_[c * D + node_ranks_[first + i]];
      sample_multinomial(y, sub_, rng, tmp_);
      for (std::size_t i = 0; i < m; ++i) {
        const std::size_t d = node_ranks_[first + i];
        (d == s ? out.self_pairs[s] : out.received_intra[d]) += tmp_[i];
        rank_total_[c * D + d] += tmp_[i];
      }
      continue;
    }
    const std::int64_t self = q >= Q ? y : sample_binomial(y, q / Q, rng);
    out.self_pairs[s] = self;
    rank_total_[c * D + s] += self;
    const std::int64_t rest = y - self;
    rest_[c * D + s] = rest;
    inside_[c * N + own] += rest;
    if (rest > 0) inside_weight_[c * N + own] += static_cast<double>(rest) / (Q - q);
  }

  // Each node's receipts split over its ranks.
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t n = 0; n < N; ++n) {
      const std::size_t first = node_first_[n], m = node_first_[n + 1] - first;
      const double Q = node_q_[c * N + n];
      for (const bool remote : {true, false}) {
        const std::int64_t pairs = remote ? remote_[c * N + n] : inside_[c * N + n];
        if (pairs == 0) continue;
        sub_.resize(m);
        tmp_.assign(m, 0);
        for (std::size_t i = 0; i < m; ++i) {
          const std::size_t d = node_ranks_[first + i];
          const double q = q_[c * D + d];
          // Pairs from a node's own ranks never go back to their sender: the exact expectation
          // of that exclusion, q_d · Σ_{s≠d} rest_s / (Q − q_s).
          sub_[i] = remote ? q
                           : q * std::max(0.0, inside_weight_[c * N + n] -
                                                   (rest_[c * D + d] > 0 ? static_cast<double>(rest_[c * D + d]) / (Q - q) : 0.0));
        }
        sample_multinomial(pairs, sub_, rng, tmp_);
        auto& received = remote ? out.received_remote : out.received_intra;
        for (std::size_t i = 0; i < m; ++i) {
          const std::size_t d = node_ranks_[first + i];
          received[d] += tmp_[i];
          rank_total_[c * D + d] += tmp_[i];
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
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t d = 0; d < D; ++d) {
      const std::int64_t pairs = rank_total_[c * D + d];
      if (pairs == 0) continue;
      const std::size_t first = slot_first_[d], m = slot_first_[d + 1] - first;
      sub_.resize(m);
      tmp_.assign(m, 0);
      for (std::size_t i = 0; i < m; ++i) sub_[i] = w_[c * slots + order_[first + i]];
      sample_multinomial(pairs, sub_, rng, tmp_);
      for (std::size_t i = 0; i < m; ++i) out.slot_counts[order_[first + i]] += tmp_[i];
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
