#include "sim/layer_routing.h"

#include <algorithm>
#include <cmath>

#include "sim/check.h"
#include "sim/invariants.h"
#include "topology/aggregated_all_to_all.h"

namespace moesim::sim {
namespace {

// Expected distinct tokens among `pairs` pairs that a source sends to a destination receiving a
// share q of its pairs, for top-k routing: pairs · (1 - (1 - q)^k) / (k · q).
double tokens_per_pair(double q, int k) {
  if (q <= 0) return 1.0;
  if (q >= 1) return 1.0 / k;
  double miss = 1.0;
  for (int i = 0; i < k; ++i) miss *= 1.0 - q;
  return (1.0 - miss) / (k * q);
}

double distinct_tokens(double pairs, double q, int k) {
  if (pairs <= 0 || q <= 0) return 0;
  if (q >= 1) return pairs / k;
  double miss = 1.0;  // (1 - q)^k by repeated multiplication: k is a small integer (top-k)
  for (int i = 0; i < k; ++i) miss *= 1.0 - q;
  return pairs * (1.0 - miss) / (k * q);
}

}  // namespace

void window_popularity(const workloads::RoutingModel& routing, int moe_layer, std::int64_t first, std::int64_t window,
                       std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);
  std::vector<double> p(out.size());
  for (std::int64_t t = first; t < first + window; ++t) {
    routing.expert_distribution(moe_layer, t, p);
    for (std::size_t e = 0; e < out.size(); ++e) out[e] += p[e];
  }
  for (auto& v : out) v /= static_cast<double>(std::max<std::int64_t>(1, window));
}

LayerRouting::LayerRouting(const models::ModelSpec& model, const InstanceLayout& layout,
                           const workloads::RoutingModel& routing, const topology::Cluster& cluster)
    : model_(model),
      layout_(layout),
      config_(layout.config().placement),
      model_routing_(routing),
      sampler_(routing, model.routed_experts, model.top_k) {
  shape_.experts = model.routed_experts;
  shape_.ep = layout.ep();
  shape_.redundant = config_.redundant;
  shape_.devices_per_node = std::max(1, std::min(cluster.config().devices_per_node, layout.ep()));
  shape_.expert_groups = std::max(1, model.expert_groups);
  nodes_ = cluster.num_nodes();
  for (int device : layout.rank_devices()) rank_node_.push_back(cluster.node_of(device));
  aggregated_ = layout.config().comm.fidelity->closed_form() && cluster.regular();
  const topology::AllToAllAlgorithm* a2a = layout.config().comm.all_to_all;
  per_source_nodes_ = a2a != nullptr && a2a->forwards();  // forwarders see each source's nodes
  rank_domain_ = topology::rank_domains(cluster, layout.rank_devices());
  const int layers = model.num_moe_layers();
  // EPLB from history: the routing model's clock starts `window` steps before serving, and the
  // placement is made from those steps' mean popularity (the expected counts of the window; the
  // window holds millions of pairs, so their counting noise is negligible). For a model whose
  // popularity does not change with the step both sources give the same placement; a routing
  // trace spends its first `window` steps as the statistics and is replayed from there.
  const bool history = config_.eplb() && config_.statistics == EplbStatistics::kHistory && !routing.is_step_invariant();
  step_offset_ = history ? config_.window_steps : 0;
  std::vector<std::vector<double>> expected(static_cast<std::size_t>(layers),
                                            std::vector<double>(static_cast<std::size_t>(model.routed_experts)));
  for (int l = 0; l < layers; ++l) {
    auto& load = expected[static_cast<std::size_t>(l)];
    if (history)
      window_popularity(routing, l, 0, config_.window_steps, load);
    else
      routing.expert_distribution(l, 0, load);
  }
  placement_ = place_experts(config_, shape_, expected);
  for (const auto& p : placement_) {
    targets_.push_back(p.routing_targets(config_.replica_split));
    targets_.back().rank_node = rank_domain_;
    targets_.back().revision = ++revisions_;
  }
  observed_.assign(static_cast<std::size_t>(layers),
                   std::vector<double>(static_cast<std::size_t>(model.routed_experts)));
  law_probs_.resize(static_cast<std::size_t>(layers));
  law_changes_.assign(static_cast<std::size_t>(layers), 0);
  layer_law_.resize(static_cast<std::size_t>(layers));
}

std::optional<std::uint64_t> LayerRouting::law_version(int moe_layer, std::int64_t step) {
  const auto l = static_cast<std::size_t>(moe_layer);
  step += step_offset_;
  if (model_routing_.trace_tokens(moe_layer, step)) return std::nullopt;
  if (!model_routing_.is_step_invariant()) {
    // The popularity is compared in full, as the sampler's kept setup is (routing_setup.h).
    auto& seen = law_probs_[l];
    law_scratch_.resize(static_cast<std::size_t>(model_.routed_experts));
    model_routing_.expert_distribution(moe_layer, step, law_scratch_);
    if (seen != law_scratch_) {
      seen = law_scratch_;
      ++law_changes_[l];
    }
  }
  // Targets carry a fresh revision whenever a layer is placed again (rebalance).
  return (targets_[l].revision << 32) ^ law_changes_[l];
}

std::optional<LayerRouting::SharedLaw> LayerRouting::shared_law(int moe_layer, std::int64_t step) {
  const auto version = law_version(moe_layer, step);
  if (!version) return std::nullopt;
  auto& mine = layer_law_[static_cast<std::size_t>(moe_layer)];
  if (!mine.known || mine.version != *version) {
    // The layer's law may have changed (first call, new popularity, placed again): find the
    // entry of its content among the laws layers have now, else start one.
    if (mine.known) --laws_[mine.entry].layers;
    fold_replayed(mine);  // read by the form they were replayed under
    law_scratch_.resize(static_cast<std::size_t>(model_.routed_experts));
    model_routing_.expert_distribution(moe_layer, step + step_offset_, law_scratch_);
    law_form(targets_[static_cast<std::size_t>(moe_layer)], law_scratch_, model_routing_.group_limit().has_value(),
             mine.form, law_key_);
    std::size_t found = laws_.size(), free = laws_.size();
    for (std::size_t i = 0; i < laws_.size() && found == laws_.size(); ++i) {
      if (laws_[i].layers == 0) {
        free = std::min(free, i);
      } else if (laws_[i].key == law_key_) {
        found = i;
      }
    }
    if (found == laws_.size()) {
      found = free;
      if (found == laws_.size()) laws_.emplace_back();
      LawEntry& e = laws_[found];
      e.version = ++law_versions_;
      e.leader = moe_layer;
      e.key = law_key_;
    }
    ++laws_[found].layers;
    mine.known = true;
    mine.version = *version;
    mine.entry = found;
  }
  const LawEntry& e = laws_[mine.entry];
  return SharedLaw{e.leader, e.version, e.layers};
}

void LayerRouting::observe(int moe_layer, std::span<const std::int64_t> expert_counts) {
  if (config_.rebalance_interval_s <= 0) return;
  auto& seen = observed_[static_cast<std::size_t>(moe_layer)];
  for (std::size_t e = 0; e < seen.size() && e < expert_counts.size(); ++e)
    seen[e] += static_cast<double>(expert_counts[e]);
}

void LayerRouting::add_replayed(int moe_layer, std::span<const std::int64_t> canonical) {
  auto& law = layer_law_[static_cast<std::size_t>(moe_layer)];
  MOESIM_CHECK(canonical.size() == law.form.expert.size(), "replayed counts of another shape");
  if (!law.any_replayed) law.replayed.assign(canonical.size(), 0);
  law.any_replayed = true;
  std::int64_t* sum = law.replayed.data();
  for (std::size_t c = 0; c < canonical.size(); ++c) sum[c] += canonical[c];
}

void LayerRouting::fold_replayed(LayerLaw& law) {
  if (!law.any_replayed) return;
  law.replayed_experts.resize(static_cast<std::size_t>(model_.routed_experts), 0);
  const std::int32_t* expert = law.form.expert.data();
  for (std::size_t c = 0; c < law.replayed.size(); ++c)
    law.replayed_experts[static_cast<std::size_t>(expert[c])] += law.replayed[c];
  law.any_replayed = false;
}

void LayerRouting::take_replayed(int moe_layer, std::span<std::int64_t> out) {
  auto& law = layer_law_[static_cast<std::size_t>(moe_layer)];
  fold_replayed(law);
  MOESIM_CHECK(law.replayed_experts.empty() || law.replayed_experts.size() == out.size(),
               "replayed expert counts of another shape");
  for (std::size_t e = 0; e < law.replayed_experts.size(); ++e) out[e] += law.replayed_experts[e];
  law.replayed_experts.clear();
}

void LayerRouting::canonical_slots(std::vector<std::int64_t>& out) const {
  const auto& form = layer_law_[static_cast<std::size_t>(moe_layer_)].form;
  const auto slots = slot_counts();
  MOESIM_CHECK(form.order.size() == slots.size(), "canonical slots asked before the layer's shared law");
  out.resize(slots.size());
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = slots[form.order[c]];
}

void LayerRouting::canonical_expert_counts(int moe_layer, std::span<const std::int64_t> canonical,
                                           std::span<std::int64_t> out) const {
  const auto l = static_cast<std::size_t>(moe_layer);
  MOESIM_CHECK(out.size() == static_cast<std::size_t>(model_.routed_experts), "expert counts of another shape");
  expert_counts_of(layer_law_[l].form, canonical, out);
}

std::span<const std::int64_t> LayerRouting::local_counts(int rank) const {
  const auto per = static_cast<std::size_t>(shape_.slots_per_rank());
  const auto& slots = aggregated_ ? margins_.slot_counts : counts_.slot_counts;
  return std::span<const std::int64_t>(slots).subspan(static_cast<std::size_t>(rank) * per, per);
}

void LayerRouting::draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, workloads::Rng& rng) {
  const auto l = static_cast<std::size_t>(moe_layer);
  step += step_offset_;
  if (aggregated_)
    sampler_.draw_margins(moe_layer, step, tokens, targets_[l], rng, margins_, per_source_nodes_);
  else
    sampler_.draw(moe_layer, step, tokens, targets_[l], rng, counts_);
  const auto& slots = aggregated_ ? margins_.slot_counts : counts_.slot_counts;
  const auto& experts = aggregated_ ? margins_.expert_counts : counts_.expert_counts;
  moe_layer_ = moe_layer;
  source_pairs_.resize(tokens.size());
  total_pairs_ = 0;
  for (std::size_t s = 0; s < tokens.size(); ++s) total_pairs_ += source_pairs_[s] = tokens[s] * model_.top_k;
  if (aggregated_) check_margins();
  total_received_ = 0;
  for (auto c : slots) total_received_ += c;
  if (config_.rebalance_interval_s > 0) {
    auto& seen = observed_[l];
    for (std::size_t e = 0; e < seen.size(); ++e) seen[e] += static_cast<double>(experts[e]);
  }
}

void LayerRouting::traffic(topology::AllToAllTraffic& out, bool per_pair_only) const {
  const int ranks = counts_.ranks;
  if (out.pair_bytes.ranks() != ranks) {
    out.pair_bytes = topology::TrafficMatrix(ranks);
    out.expert_bytes = topology::TrafficMatrix(ranks);
    out.node_bytes = topology::NodeTrafficMatrix(ranks, nodes_);
  }
  std::vector<double> node_pairs(static_cast<std::size_t>(nodes_));
  for (int s = 0; s < ranks; ++s) {
    double row = 0;
    for (int d = 0; d < ranks; ++d) row += static_cast<double>(counts_.pair(s, d));
    std::fill(node_pairs.begin(), node_pairs.end(), 0.0);
    for (int d = 0; d < ranks; ++d) {
      const double p = s == d ? 0.0 : static_cast<double>(counts_.pair(s, d));  // local pairs are not sent
      out.expert_bytes.at(s, d) = p;
      if (per_pair_only) continue;
      out.pair_bytes.at(s, d) = row > 0 ? distinct_tokens(p, p / row, model_.top_k) : 0.0;
      node_pairs[static_cast<std::size_t>(rank_node_[static_cast<std::size_t>(d)])] += p;
    }
    if (per_pair_only) continue;
    for (int n = 0; n < nodes_; ++n) {
      const double p = node_pairs[static_cast<std::size_t>(n)];
      out.node_bytes.at(s, n) = row > 0 ? distinct_tokens(p, p / row, model_.top_k) : 0.0;
    }
  }
  // The traffic invariant: the pair matrix the all-to-all is costed from, plus the self pairs
  // that stay local, is every rank's dispatch and every rank's experts' work.
  for (int r = 0; r < ranks; ++r) {
    const double* sent = out.expert_bytes.row(r);
    double row = 0;
    for (int d = 0; d < ranks; ++d) row += sent[d];
    const std::int64_t self = counts_.pair(r, r);
    const auto local = local_counts(r);
    std::int64_t processed = 0;
    for (const std::int64_t c : local) processed += c;
    check_traffic_pairs(moe_layer_, "sent by", r, source_pairs_[static_cast<std::size_t>(r)], std::llround(row) + self);
    check_traffic_pairs(moe_layer_, "received by", r, processed, std::llround(out.expert_bytes.received(r)) + self);
  }
}

void LayerRouting::check_margins() const {
  const workloads::RoutingMargins& m = margins_;
  std::int64_t within = 0, between = 0, got_within = 0, got_between = 0;
  for (int r = 0; r < m.ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    check_traffic_pairs(moe_layer_, "sent by", r, source_pairs_[i], m.source_pairs[i]);
    within += m.own_node_pairs[i] - m.self_pairs[i];
    between += m.source_pairs[i] - m.own_node_pairs[i];
    got_within += m.received_intra[i];
    got_between += m.received_remote[i];
    const auto local = local_counts(r);
    std::int64_t processed = 0;
    for (const std::int64_t c : local) processed += c;
    check_traffic_pairs(moe_layer_, "received by", r, processed,
                        m.received_intra[i] + m.received_remote[i] + m.self_pairs[i]);
  }
  check_traffic_pairs(moe_layer_, "sent within nodes", -1, within, got_within);
  check_traffic_pairs(moe_layer_, "sent between nodes", -1, between, got_between);
}

double LayerRouting::traffic(topology::AggregatedTraffic& out, const topology::AllToAllAlgorithm& algorithm) const {
  const workloads::RoutingMargins& m = margins_;
  const bool pairs_view = algorithm.low_latency(), node_view = algorithm.forwards();
  const bool rank_view = !pairs_view;
  const int R = m.ranks, N = m.nodes, k = model_.top_k;
  const auto NN = static_cast<std::size_t>(N);
  // Tokens per pair: per destination rank, per node (for senders outside it), and per node for
  // senders inside it (their own rank excluded).
  rank_rho_.resize(static_cast<std::size_t>(R));
  node_rho_.assign(NN, 0.0);
  node_q_rho_.assign(NN, 0.0);
  for (int d = 0; d < R && rank_view; ++d) {
    const double q = m.rank_mass[static_cast<std::size_t>(d)];
    rank_rho_[static_cast<std::size_t>(d)] = tokens_per_pair(q, k);
    node_q_rho_[static_cast<std::size_t>(rank_domain_[static_cast<std::size_t>(d)])] +=
        q * rank_rho_[static_cast<std::size_t>(d)];
  }
  for (std::size_t n = 0; n < NN && node_view; ++n) node_rho_[n] = tokens_per_pair(m.node_mass[n], k);
  // Tokens per pair into node n from senders outside it (from inside, the sender's own rank is
  // taken out of the node's mass per source below).
  node_factor_.resize(NN);
  for (std::size_t n = 0; n < NN && rank_view; ++n)
    node_factor_[n] = m.node_mass[n] > 0 ? node_q_rho_[n] / m.node_mass[n] : 1.0;
  // Tokens per pair from sender i into its own node's other ranks (rank view).
  const auto own_factor = [&](std::size_t i) {
    const auto own = static_cast<std::size_t>(rank_domain_[i]);
    const double qn = m.node_mass[own] - m.rank_mass[i];
    const double qrho = node_q_rho_[own] - m.rank_mass[i] * rank_rho_[i];
    return qn > 0 ? qrho / qn : 1.0;
  };
  double fabric = 0;  // the fabric's tokens, summed per source
  if (m.per_source()) {
    if (out.ranks != R || out.nodes != N || out.pairs.factored) out.assign(R, N);
    row_.resize(NN);
    for (int s = 0; s < R; ++s) {
      const auto i = static_cast<std::size_t>(s);
      const auto own = static_cast<std::size_t>(rank_domain_[i]);
      // Pairs from s into each node, its self pairs (which stay local) taken out.
      for (std::size_t n = 0; n < NN; ++n) row_[n] = static_cast<double>(m.node_pairs[i * NN + n]);
      row_[own] -= static_cast<double>(m.self_pairs[i]);
      const std::size_t base = i * NN;
      if (pairs_view) {
        double* sent = out.pairs.sent_to_node.data() + base;
        for (std::size_t n = 0; n < NN; ++n) sent[n] = row_[n];
      }
      if (node_view) {
        double* sent = out.node_tokens.sent_to_node.data() + base;
        for (std::size_t n = 0; n < NN; ++n) sent[n] = row_[n] * node_rho_[n];
      }
      if (rank_view) {
        double* sent = out.rank_tokens.sent_to_node.data() + base;
        for (std::size_t n = 0; n < NN; ++n) sent[n] = row_[n] * node_factor_[n];
        sent[own] = row_[own] * own_factor(i);
      }
      const double* counted = (pairs_view ? out.pairs.sent_to_node : out.rank_tokens.sent_to_node).data() + base;
      double row_total = 0;  // per source first: independent short chains instead of one long one
      for (std::size_t n = 0; n < NN; ++n) row_total += counted[n];
      fabric += row_total;
    }
  } else {
    // Without per-source rows a source's remote pairs go to the other nodes in the model's
    // proportions (their expectation): factored margins, u_b = node mass (times tokens per pair
    // into b for the rank view), d_a = 1 - node mass of a.
    if (out.ranks != R || out.nodes != N || !out.pairs.factored) {
      out.ranks = R;
      out.nodes = N;
      for (auto* v : {&out.pairs, &out.rank_tokens, &out.node_tokens}) v->assign_factored(R, N);
    }
    topology::TrafficMargins& v = pairs_view ? out.pairs : out.rank_tokens;
    for (std::size_t n = 0; n < NN; ++n) {
      v.spread_weight[n] = pairs_view ? m.node_mass[n] : m.node_mass[n] * node_factor_[n];
      v.spread_norm[n] = 1.0 - m.node_mass[n];
    }
    const double weight = v.spread_total();
    for (int s = 0; s < R; ++s) {
      const auto i = static_cast<std::size_t>(s);
      const auto own = static_cast<std::size_t>(rank_domain_[i]);
      const double inside = static_cast<double>(m.own_node_pairs[i] - m.self_pairs[i]);
      v.sent_own[i] = pairs_view ? inside : inside * own_factor(i);
      v.sent_remote[i] = static_cast<double>(m.source_pairs[i] - m.own_node_pairs[i]);
      fabric += v.sent_own[i] + v.sent_remote[i] * v.leaving_share(static_cast<int>(own), weight);
    }
  }
  for (int d = 0; d < R; ++d) {
    const auto i = static_cast<std::size_t>(d);
    const double intra = static_cast<double>(m.received_intra[i]), remote = static_cast<double>(m.received_remote[i]);
    if (pairs_view) {
      out.pairs.received_intra[i] = intra;
      out.pairs.received_remote[i] = remote;
    }
    if (rank_view) {
      out.rank_tokens.received_intra[i] = intra * rank_rho_[i];
      out.rank_tokens.received_remote[i] = remote * rank_rho_[i];
    }
  }
  return fabric;
}

std::int64_t LayerRouting::sent_pairs() const {
  std::int64_t sent = 0;
  if (aggregated_) {
    for (int d = 0; d < margins_.ranks; ++d)
      sent +=
          margins_.received_intra[static_cast<std::size_t>(d)] + margins_.received_remote[static_cast<std::size_t>(d)];
  } else {
    for (int s = 0; s < counts_.ranks; ++s)
      for (int d = 0; d < counts_.ranks; ++d)
        if (s != d) sent += counts_.pair(s, d);
  }
  return sent;
}

std::vector<std::int64_t> LayerRouting::rebalance() {
  const auto r = sim::rebalance(placement_, config_, shape_, observed_);
  placement_ = r.placement;
  for (std::size_t l = 0; l < placement_.size(); ++l) {
    targets_[l] = placement_[l].routing_targets(config_.replica_split);
    targets_[l].rank_node = rank_domain_;
    targets_[l].revision = ++revisions_;
  }
  for (auto& seen : observed_) std::fill(seen.begin(), seen.end(), 0.0);
  return r.moved_per_rank;
}

}  // namespace moesim::sim
