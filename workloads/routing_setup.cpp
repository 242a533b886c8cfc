// RoutingSetup: the layers' popularity, their kept setups, and the rules that keep them.
#include "workloads/routing_setup.h"

#include <algorithm>
#include <cstring>

#include "workloads/binomial.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

constexpr std::size_t kNoGroup = ~std::size_t{0};

// Whether two arrays hold the same bytes (stricter than ==, which is all a kept setup needs).
template <class T>
bool same_bits(std::span<const T> a, std::span<const T> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

RoutingSetup::RoutingSetup(const RoutingModel& model, int experts)
    : model_(model), experts_(experts), own_probs_(static_cast<std::size_t>(experts)) {}

std::span<const double> RoutingSetup::load(int moe_layer, std::int64_t step) {
  const std::size_t key = model_.is_static() ? 0 : static_cast<std::size_t>(std::max(0, moe_layer));
  if (model_.is_step_invariant()) {
    if (key >= cached_.size()) cached_.resize(key + 1);
    if (cached_[key].empty()) {
      cached_[key].resize(own_probs_.size());
      model_.expert_distribution(moe_layer, step, cached_[key]);
    }
    probs_ = cached_[key];  // a view: no copy per draw
  } else {
    model_.expert_distribution(moe_layer, step, own_probs_);
    probs_ = own_probs_;
  }
  return probs_;
}

void RoutingSetup::class_weights(const RoutingTargets& t, std::vector<double>& w, std::vector<double>& q) const {
  const auto slots = t.slot_rank.size();
  const auto D = static_cast<std::size_t>(t.ranks);
  w.assign(static_cast<std::size_t>(t.classes) * slots, 0.0);
  q.assign(static_cast<std::size_t>(t.classes) * D, 0.0);
  for (std::size_t c = 0; c < static_cast<std::size_t>(t.classes); ++c)
    for (std::size_t j = 0; j < slots; ++j) {
      const double x = probs_[static_cast<std::size_t>(t.slot_expert[j])] * t.slot_share[c * slots + j];
      w[c * slots + j] = x;
      q[c * D + static_cast<std::size_t>(t.slot_rank[j])] += x;
    }
}

// The layer's setup: rebuilt only when the popularity or the targets differ from the kept one's.
const LayerRoutingSetup& RoutingSetup::layer(int moe_layer, const RoutingTargets& t) {
  const auto key = static_cast<std::size_t>(std::max(0, moe_layer));
  if (key >= kept_.size()) kept_.resize(key + 1);
  Kept& K = kept_[key];
  const RoutingTargets& k = K.targets;
  // A step-invariant model gives a layer the same popularity at every step (load); targets of the
  // same nonzero revision are the same targets.
  const bool same_probs = model_.is_step_invariant() || same_bits(std::span<const double>(K.probs), probs_);
  const bool same_targets = t.revision != 0 ? k.revision == t.revision : k.revision == 0 && k.same_content(t);
  if (!(K.valid && same_probs && same_targets)) {
    K.valid = false;  // until built (a throw leaves it rebuilt next time)
    build(t, K.setup);
    ++builds_;
    K.probs.assign(probs_.begin(), probs_.end());
    K.targets = t;
    K.masses.shares.clear();  // masses() recomputes
    K.valid = true;
  }
  return K.setup;
}

// The model's expected share of all pairs at each rank and node (pair-weighted over classes).
// They depend on the tokens only through each class's share of them (one class: always 1), so
// they are kept with the setup and recomputed when those shares change.
const ModelMasses& RoutingSetup::masses(int moe_layer, std::span<const double> class_share) {
  const auto key = static_cast<std::size_t>(std::max(0, moe_layer));
  if (key >= kept_.size() || !kept_[key].valid) throw WorkloadError("routing setup: masses of a layer not set up");
  Kept& K = kept_[key];
  const LayerRoutingSetup& S = K.setup;
  ModelMasses& M = K.masses;
  if (!same_bits(std::span<const double>(M.shares), class_share)) {
    const std::size_t D = S.rank_node.size(), N = S.node_first.size() - 1;
    M.shares.assign(class_share.begin(), class_share.end());
    M.rank_mass.assign(D, 0.0);
    M.node_mass.assign(N, 0.0);
    for (std::size_t c = 0; c < class_share.size(); ++c) {
      double mass = 0;
      for (std::size_t d = 0; d < D; ++d) mass += S.q[c * D + d];
      if (mass <= 0 || class_share[c] <= 0) continue;
      const double scale = class_share[c] / mass;
      for (std::size_t d = 0; d < D; ++d) M.rank_mass[d] += scale * S.q[c * D + d];
    }
    for (std::size_t d = 0; d < D; ++d) M.node_mass[S.rank_node[d]] += M.rank_mass[d];
  }
  return M;
}

void RoutingSetup::build(const RoutingTargets& t, LayerRoutingSetup& S) {
  class_weights(t, S.w, S.q);
  virtual_weights(t, S);
  const auto D = static_cast<std::size_t>(t.ranks), N = static_cast<std::size_t>(t.nodes());
  const auto slots = t.slot_rank.size(), V = S.vw.size() / std::max<std::size_t>(slots, 1);
  // Rank and node masses per virtual class, and each node's ranks.
  S.rank_node.resize(D);
  for (std::size_t d = 0; d < D; ++d) S.rank_node[d] = static_cast<std::size_t>(t.node_of(static_cast<int>(d)));
  S.vq.assign(V * D, 0.0);
  S.node_q.assign(V * N, 0.0);
  for (std::size_t v = 0; v < V; ++v) {
    const double* vw = S.vw.data() + v * slots;
    double* vq = S.vq.data() + v * D;
    for (std::size_t j = 0; j < slots; ++j) vq[static_cast<std::size_t>(t.slot_rank[j])] += vw[j];
    double* nq = S.node_q.data() + v * N;
    for (std::size_t d = 0; d < D; ++d) nq[S.rank_node[d]] += vq[d];
  }
  S.node_first.assign(N + 1, 0);
  for (std::size_t d = 0; d < D; ++d) ++S.node_first[S.rank_node[d] + 1];
  for (std::size_t n = 0; n < N; ++n) S.node_first[n + 1] += S.node_first[n];
  S.node_ranks.resize(D);
  {
    auto next = S.node_first;
    for (std::size_t d = 0; d < D; ++d) S.node_ranks[next[S.rank_node[d]]++] = d;
  }

  // Slots grouped by rank, and each rank's place in its node.
  S.slot_first.assign(D + 1, 0);
  for (const int r : t.slot_rank) ++S.slot_first[static_cast<std::size_t>(r) + 1];
  for (std::size_t d = 0; d < D; ++d) S.slot_first[d + 1] += S.slot_first[d];
  S.order.resize(slots);
  {
    auto next = S.slot_first;
    for (std::size_t j = 0; j < slots; ++j) S.order[next[static_cast<std::size_t>(t.slot_rank[j])]++] = j;
  }
  S.rank_pos.resize(D);
  for (std::size_t n = 0; n < N; ++n)
    for (std::size_t k = S.node_first[n]; k < S.node_first[n + 1]; ++k)
      S.rank_pos[S.node_ranks[k]] = k - S.node_first[n];
  pattern_groups(t, V, N, S);

  // Conditionals of the splits whose weights are fixed by the setup: each node's ranks, each
  // rank's slots, per virtual class.
  S.rank_cond.assign(V * D, 0.0);
  S.slot_cond.assign(V * slots, 0.0);
  std::vector<double> weights;
  for (std::size_t v = 0; v < V; ++v) {
    for (std::size_t n = 0; n < N; ++n) {
      const std::size_t first = S.node_first[n], m = S.node_first[n + 1] - first;
      weights.resize(m);
      for (std::size_t k = 0; k < m; ++k) weights[k] = S.vq[v * D + S.node_ranks[first + k]];
      multinomial_conditionals(weights, std::span<double>(S.rank_cond.data() + v * D + first, m));
    }
    for (std::size_t d = 0; d < D; ++d) {
      const std::size_t sf = S.slot_first[d], m = S.slot_first[d + 1] - sf;
      weights.resize(m);
      for (std::size_t i = 0; i < m; ++i) weights[i] = S.vw[v * slots + S.order[sf + i]];
      multinomial_conditionals(weights, std::span<double>(S.slot_cond.data() + v * slots + sf, m));
    }
  }
}

// Virtual classes (routing_margins.h): without a group limit a virtual class is a source class;
// with one, a source's pairs first pick groups (the draw's rows, RoutingSampler::virtual_rows),
// and each (source, group) is a row of the virtual class (class, group), whose slot weights are
// the class's restricted to the group.
void RoutingSetup::virtual_weights(const RoutingTargets& t, LayerRoutingSetup& S) {
  const auto slots = t.slot_rank.size();
  const auto C = static_cast<std::size_t>(t.classes);
  const auto g = model_.group_limit();
  const std::size_t G = g ? static_cast<std::size_t>(g->groups) : 1;
  const std::size_t V = C * G;
  S.vw.assign(V * slots, 0.0);
  const int group_size = g ? experts_ / g->groups : experts_;
  S.slot_group.resize(slots);
  for (std::size_t j = 0; j < slots; ++j) S.slot_group[j] = static_cast<std::size_t>(t.slot_expert[j] / group_size);
  group_mass_.resize(G);
  for (std::size_t c = 0; c < C; ++c) {
    std::fill(group_mass_.begin(), group_mass_.end(), 0.0);
    const double* w = S.w.data() + c * slots;
    if (G == 1) {  // four partial sums: no serial chain of additions
      double part[4] = {0, 0, 0, 0};
      std::size_t j = 0;
      for (; j + 4 <= slots; j += 4)
        for (std::size_t i = 0; i < 4; ++i) part[i] += w[j + i];
      for (; j < slots; ++j) part[0] += w[j];
      group_mass_[0] = (part[0] + part[1]) + (part[2] + part[3]);
    } else {
      for (std::size_t j = 0; j < slots; ++j) group_mass_[S.slot_group[j]] += w[j];
    }
    for (double& m : group_mass_) m = m > 0 ? 1.0 / m : 0.0;
    double* vw = S.vw.data() + c * G * slots;
    for (std::size_t j = 0; j < slots; ++j) {
      const std::size_t k = S.slot_group[j];
      vw[k * slots + j] = w[j] * group_mass_[k];
    }
  }
}

// Pattern groups: per node, the virtual classes whose pairs split identically over the node's
// slots (the same replica shares there, and for group-limited rows the same group) form one
// group; counts of a group's classes are merged before a split (a sum of independent
// multinomials with equal probabilities is one multinomial of the summed total). Classes with
// no mass on a node join no group there (they send it nothing).
void RoutingSetup::pattern_groups(const RoutingTargets& t, std::size_t V, std::size_t N, LayerRoutingSetup& S) {
  const auto slots = t.slot_rank.size();
  const auto C = static_cast<std::size_t>(t.classes);
  const std::size_t G = V / C;  // token groups of group-limited routing (1 otherwise)
  // Each node's slots, contiguous.
  S.node_slots.clear();
  S.node_slot_first.assign(N + 1, 0);
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t k = S.node_first[n]; k < S.node_first[n + 1]; ++k) {
      const std::size_t d = S.node_ranks[k];
      for (std::size_t i = S.slot_first[d]; i < S.slot_first[d + 1]; ++i) S.node_slots.push_back(S.order[i]);
    }
    S.node_slot_first[n + 1] = S.node_slots.size();
  }
  // Each class's replica shares over each node's slots (contiguous, to compare).
  S.share_by_node.resize(C * slots);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t i = 0; i < slots; ++i) S.share_by_node[c * slots + i] = t.slot_share[c * slots + S.node_slots[i]];
  S.pattern.assign(V * N, kNoGroup);
  S.group_first.assign(1, 0);
  S.group_node.clear();
  S.group_class.clear();
  for (std::size_t n = 0; n < N; ++n) {
    const std::size_t first_group = S.group_node.size();
    const std::size_t b = S.node_slot_first[n], e = S.node_slot_first[n + 1];
    for (std::size_t v = 0; v < V; ++v) {
      if (!(S.node_q[v * N + n] > 0)) continue;
      const std::size_t c = v / G, k = v % G;
      std::size_t found = kNoGroup;
      for (std::size_t g = first_group; g < S.group_node.size() && found == kNoGroup; ++g) {
        const std::size_t u = S.group_class[g];
        if (u % G != k) continue;
        const double* x = S.share_by_node.data() + c * slots;
        const double* y = S.share_by_node.data() + (u / G) * slots;
        if (std::equal(x + b, x + e, y + b)) found = g;
      }
      if (found == kNoGroup) {
        found = S.group_node.size();
        S.group_node.push_back(n);
        S.group_class.push_back(v);
        S.group_first.push_back(S.group_first.back() + S.node_first[n + 1] - S.node_first[n]);
      }
      S.pattern[v * N + n] = found;
    }
  }
}

}  // namespace moesim::workloads
