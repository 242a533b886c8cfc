// RoutingSampler::draw_margins: the layer's routing as margins (workloads/routing_margins.h).
#include <algorithm>

#include "workloads/binomial.h"
#include "workloads/routing_sampler.h"
#include "workloads/workload_error.h"

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

// The rows of the virtual classes (RoutingSetup::virtual_weights): without a group limit a row is
// a source and its class; with one, a source's pairs first pick groups (exact, as in `grouped`),
// and each (source, group) is a row of the virtual class (class, group). Everything after treats
// rows alike.
void RoutingSampler::virtual_rows(std::span<const std::int64_t> tokens, const RoutingTargets& t, Rng& rng) {
  const auto D = static_cast<std::size_t>(t.ranks);
  const auto g = model_.group_limit();
  const std::size_t G = g ? static_cast<std::size_t>(g->groups) : 1;
  const int group_size = g ? experts_ / g->groups : experts_;
  if (!g) {
    // One row per source, from the tokens and the classes alone: the same for every layer of a
    // (micro-)batch, so kept while they are.
    if (rows_tokens_.size() == D && std::equal(tokens.begin(), tokens.end(), rows_tokens_.begin()) &&
        rows_classes_ == t.source_class && row_src_.size() == D)
      return;
    rows_tokens_.assign(tokens.begin(), tokens.end());
    rows_classes_ = t.source_class;
  } else {
    rows_tokens_.clear();
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
  const std::span<const double> probs = setup_.probs();
  for (std::size_t e = 0; e < probs.size(); ++e) group_mass_[e / static_cast<std::size_t>(group_size)] += probs[e];
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
    throw WorkloadError("routing targets: one node per rank expected");
  if (const auto trace = model_.trace_tokens(moe_layer, step); trace && !trace->ids.empty()) {
    draw(moe_layer, step, tokens, t, rng, full_);
    aggregate_margins(full_, t, out);
    return;
  }
  check(t);
  if (tokens.size() != static_cast<std::size_t>(t.ranks))
    throw WorkloadError("routing sampler: one token count per source rank expected");
  setup_.load(moe_layer, step);
  const LayerRoutingSetup& S = setup_.layer(moe_layer, t);
  virtual_rows(tokens, t, rng);

  const auto D = static_cast<std::size_t>(t.ranks), N = static_cast<std::size_t>(t.nodes());
  const auto slots = t.slot_rank.size(), V = S.vw.size() / std::max<std::size_t>(slots, 1);
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

  // Each row's own-node pairs, and what each class sends into every node from elsewhere. Draws
  // that do not depend on each other go to the batch sampler together (binomial_batch.h).
  FastBits bits{rng()};
  batch_.set_method(model_.count_method());
  remote_.assign(V * N, 0);
  group_total_.assign(S.group_first.back(), 0);  // pairs of each pattern group reaching each of its node's ranks
  row_own_.resize(R);
  if (per_source_nodes) {
    out.node_pairs.assign(D * N, 0);
    out.block_pairs.assign(N * N, 0);
    row_nodes_.resize(R * N);
    rows_.draw(row_pairs_, row_class_, S.node_q, static_cast<int>(N), rng, row_nodes_);
    for (std::size_t i = 0; i < R; ++i) {
      const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
      const auto own = S.rank_node[s];
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
    // M ranks). It is drawn over the nodes here (weights Q_n · Σ_{m ≠ n} rem_m / (1 - Q_m)) and
    // split within each node below: the same multinomial.
    out.node_pairs.clear();
    out.block_pairs.clear();
    block_rem_.assign(V * N, 0);
    draw_p_.resize(R);
    for (std::size_t i = 0; i < R; ++i)
      draw_p_[i] = std::min(1.0, S.node_q[static_cast<std::size_t>(row_class_[i]) * N + S.rank_node[row_src_[i]]]);
    batch_.draw(row_pairs_, draw_p_, bits, row_own_);
    for (std::size_t i = 0; i < R; ++i)
      block_rem_[static_cast<std::size_t>(row_class_[i]) * N + S.rank_node[row_src_[i]]] += row_pairs_[i] - row_own_[i];
    node_w_.resize(N);
    sub_.resize(N);
    tmp_.resize(N);
    for (std::size_t v = 0; v < V; ++v) {
      double weight = 0;
      std::int64_t pairs = 0;
      for (std::size_t m = 0; m < N; ++m) {
        const std::int64_t rem = block_rem_[v * N + m];
        node_w_[m] = rem == 0 ? 0.0 : static_cast<double>(rem) / std::max(1e-300, 1.0 - S.node_q[v * N + m]);
        weight += node_w_[m];
        pairs += rem;
      }
      if (pairs == 0) continue;
      for (std::size_t n = 0; n < N; ++n) sub_[n] = S.node_q[v * N + n] * std::max(0.0, weight - node_w_[n]);
      std::fill(tmp_.begin(), tmp_.end(), 0);
      sample_multinomial(pairs, std::span<const double>(sub_.data(), N), bits, std::span<std::int64_t>(tmp_.data(), N),
                         batch_.method());
      for (std::size_t n = 0; n < N; ++n) remote_[v * N + n] = tmp_[n];
    }
  }
  for (std::size_t i = 0; i < R; ++i) out.own_node_pairs[row_src_[i]] += row_own_[i];

  // Self pairs and internal pairs: exactly per row on small nodes, else per node. On large nodes a
  // row's self pairs are Binomial(own-node pairs, q_s / Q), all rows in one batch.
  rest_.assign(V * D, 0);  // [v * D + s]: row (s, v)'s own-node pairs bound for its node's other ranks
  inside_.assign(V * N, 0);
  inside_weight_.assign(V * N, 0.0);
  draw_n_.assign(R, 0);
  draw_p_.assign(R, 0.0);
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
    const auto own = S.rank_node[s];
    if (S.node_first[own + 1] - S.node_first[own] <= kExactIntraRanks) continue;
    const double Q = S.node_q[v * N + own], q = S.vq[v * D + s];
    draw_n_[i] = row_own_[i];
    draw_p_[i] = q <= 0 ? 0.0 : q >= Q ? 1.0 : q / Q;
  }
  row_self_.resize(R);
  batch_.draw(draw_n_, draw_p_, bits, row_self_);
  for (std::size_t i = 0; i < R; ++i) {
    const std::size_t s = row_src_[i], v = static_cast<std::size_t>(row_class_[i]);
    const auto own = S.rank_node[s];
    const std::int64_t y = row_own_[i];
    if (y == 0) continue;
    const double Q = S.node_q[v * N + own], q = S.vq[v * D + s];
    const std::size_t first = S.node_first[own], m = S.node_first[own + 1] - first;
    std::int64_t* group = group_total_.data() + S.group_first[S.pattern[v * N + own]];
    if (m <= kExactIntraRanks) {
      // The row's own-node pairs over the node's ranks, its source included (self pairs).
      tmp_.assign(m, 0);
      sample_conditional(y, std::span<const double>(S.rank_cond.data() + v * D + first, m), bits, tmp_,
                         batch_.method());
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t d = S.node_ranks[first + k];
        (d == s ? out.self_pairs[s] : out.received_intra[d]) += tmp_[k];
        group[k] += tmp_[k];
      }
      continue;
    }
    const std::int64_t self = row_self_[i];
    out.self_pairs[s] += self;
    group[S.rank_pos[s]] += self;
    const std::int64_t rest = y - self;
    rest_[v * D + s] = rest;
    inside_[v * N + own] += rest;
    if (rest > 0) inside_weight_[v * N + own] += static_cast<double>(rest) / (Q - q);
  }

  // Each node's receipts split over its ranks, all nodes' splits in lockstep: remote ones per
  // pattern group (the classes with the same weights there), internal ones per class (the split
  // depends on the senders). Rows are padded to the largest node with empty categories.
  // A row of a lockstep split: its pairs, what it belongs to, and `width` conditionals, zero past
  // the row's own categories (returned for the caller to fill).
  const auto add_split = [&](std::int64_t pairs, std::int64_t id, std::size_t width) {
    split_n_.push_back(pairs);
    split_row_.push_back(id);
    split_cond_.resize(split_cond_.size() + width, 0.0);
    return split_cond_.data() + split_cond_.size() - width;
  };
  std::size_t width = 0;
  for (std::size_t n = 0; n < N; ++n) width = std::max(width, S.node_first[n + 1] - S.node_first[n]);
  split_n_.clear();
  split_cond_.clear();
  split_row_.clear();  // the group (remote) or ~(v * N + n) (internal) each row belongs to
  for (std::size_t g = 0; g + 1 < S.group_first.size(); ++g) {
    const std::size_t n = S.group_node[g], v = S.group_class[g];
    const std::size_t first = S.node_first[n], m = S.node_first[n + 1] - first;
    std::int64_t pairs = 0;
    for (std::size_t u = 0; u < V; ++u)
      if (S.pattern[u * N + n] == g) pairs += remote_[u * N + n];
    if (pairs == 0) continue;
    std::copy_n(S.rank_cond.data() + v * D + first, m, add_split(pairs, static_cast<std::int64_t>(g), width));
  }
  for (std::size_t v = 0; v < V; ++v)
    for (std::size_t n = 0; n < N; ++n) {
      const std::int64_t pairs = inside_[v * N + n];
      if (pairs == 0) continue;
      const std::size_t first = S.node_first[n], m = S.node_first[n + 1] - first;
      const double Q = S.node_q[v * N + n];
      sub_.resize(m);
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t d = S.node_ranks[first + k];
        const double q = S.vq[v * D + d];
        // Pairs from a node's own ranks never go back to their sender: the exact expectation
        // of that exclusion, q_d · Σ_{s≠d} rest_s / (Q − q_s).
        sub_[k] = q * std::max(0.0, inside_weight_[v * N + n] -
                                        (rest_[v * D + d] > 0 ? static_cast<double>(rest_[v * D + d]) / (Q - q) : 0.0));
      }
      multinomial_conditionals(sub_,
                               std::span<double>(add_split(pairs, ~static_cast<std::int64_t>(v * N + n), width), m));
    }
  split_out_.assign(split_n_.size() * width, 0);
  batch_.conditional_rows(split_n_, split_cond_, width, bits, split_out_);
  for (std::size_t r = 0; r < split_n_.size(); ++r) {
    const std::int64_t* got = split_out_.data() + r * width;
    const std::int64_t id = split_row_[r];
    const bool remote = id >= 0;
    const std::size_t vn = remote ? 0 : static_cast<std::size_t>(~id);
    const std::size_t g = remote ? static_cast<std::size_t>(id) : S.pattern[vn];
    const std::size_t n = remote ? S.group_node[g] : vn % N;
    const std::size_t first = S.node_first[n];
    std::int64_t* group = group_total_.data() + S.group_first[g];
    auto& into = remote ? out.received_remote : out.received_intra;
    for (std::size_t k = 0; k < S.node_first[n + 1] - first; ++k) {
      into[S.node_ranks[first + k]] += got[k];
      group[k] += got[k];
    }
  }

  // Each rank's pairs split over its slots, per pattern group, all ranks in lockstep.
  std::size_t slot_width = 0;
  for (std::size_t d = 0; d < D; ++d) slot_width = std::max(slot_width, S.slot_first[d + 1] - S.slot_first[d]);
  split_n_.clear();
  split_cond_.clear();
  split_row_.clear();  // the rank
  for (std::size_t g = 0; g + 1 < S.group_first.size(); ++g) {
    const std::size_t n = S.group_node[g], v = S.group_class[g];
    const std::size_t first = S.node_first[n];
    for (std::size_t k = 0; k < S.group_first[g + 1] - S.group_first[g]; ++k) {
      const std::int64_t pairs = group_total_[S.group_first[g] + k];
      if (pairs == 0) continue;
      const std::size_t d = S.node_ranks[first + k];
      const std::size_t sf = S.slot_first[d], m = S.slot_first[d + 1] - sf;
      std::copy_n(S.slot_cond.data() + v * slots + sf, m, add_split(pairs, static_cast<std::int64_t>(d), slot_width));
    }
  }
  split_out_.assign(split_n_.size() * slot_width, 0);
  batch_.conditional_rows(split_n_, split_cond_, slot_width, bits, split_out_);
  for (std::size_t r = 0; r < split_n_.size(); ++r) {
    const auto d = static_cast<std::size_t>(split_row_[r]);
    const std::size_t sf = S.slot_first[d];
    for (std::size_t i = 0; i < S.slot_first[d + 1] - sf; ++i)
      out.slot_counts[S.order[sf + i]] += split_out_[r * slot_width + i];
  }
  for (std::size_t j = 0; j < slots; ++j)
    out.expert_counts[static_cast<std::size_t>(t.slot_expert[j])] += out.slot_counts[j];
  model_masses(moe_layer, t, tokens, out);
}

// The model's expected share of all pairs at each rank and node (pair-weighted over classes),
// from each class's share of the tokens (kept with the layer's setup while the shares are).
void RoutingSampler::model_masses(int moe_layer, const RoutingTargets& t, std::span<const std::int64_t> tokens,
                                  RoutingMargins& out) {
  const auto D = static_cast<std::size_t>(t.ranks);
  class_share_.assign(static_cast<std::size_t>(t.classes), 0.0);
  double total = 0;
  if (t.classes == 1) {  // one class holds every token there is
    for (std::size_t s = 0; s < D && total == 0; ++s) total += static_cast<double>(tokens[s]);
    class_share_[0] = total > 0 ? 1.0 : 0.0;
  } else {
    for (std::size_t s = 0; s < D; ++s) {
      class_share_[static_cast<std::size_t>(t.source_class[s])] += static_cast<double>(tokens[s]);
      total += static_cast<double>(tokens[s]);
    }
    for (double& w : class_share_) w = total > 0 ? w / total : 0.0;
  }
  const ModelMasses& masses = setup_.masses(moe_layer, class_share_);
  out.rank_mass = masses.rank_mass;
  out.node_mass = masses.node_mass;
}

}  // namespace moesim::workloads
