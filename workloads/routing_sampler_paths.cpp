// RoutingSampler's group-limited and trace-replay paths.
#include <algorithm>

#include "workloads/routing_sampler.h"

namespace moesim::workloads {

void RoutingSampler::add_pairs(int src, int slot, std::int64_t n, const RoutingTargets& t, LayerCounts& out) const {
  out.pairs[static_cast<std::size_t>(src) * static_cast<std::size_t>(t.ranks) +
            static_cast<std::size_t>(t.slot_rank[static_cast<std::size_t>(slot)])] += n;
  out.slot_counts[static_cast<std::size_t>(slot)] += n;
}

void RoutingSampler::grouped(std::span<const std::int64_t> tokens, const RoutingTargets& t, GroupLimit g, Rng& rng,
                             LayerCounts& out) {
  const auto G = static_cast<std::size_t>(g.groups);
  const int group_size = experts_ / g.groups;
  const int M = std::min(g.top_groups, top_k_);
  const std::int64_t base = top_k_ / M, extra = top_k_ % M;
  const auto slots = t.slot_rank.size();
  std::vector<double> group_mass(G, 0.0);
  const std::span<const double> probs = setup_.probs();
  for (std::size_t e = 0; e < probs.size(); ++e) group_mass[e / static_cast<std::size_t>(group_size)] += probs[e];
  // Slots of each group, in slot order.
  std::vector<std::vector<std::size_t>> group_slots(G);
  for (std::size_t j = 0; j < slots; ++j)
    group_slots[static_cast<std::size_t>(t.slot_expert[j] / group_size)].push_back(j);
  std::vector<std::int64_t> sel(G), ext(G);
  std::vector<double> sel_w(G);
  for (std::size_t s = 0; s < tokens.size(); ++s) {
    if (tokens[s] <= 0) continue;
    const auto c = static_cast<std::size_t>(t.source_class[s]);
    std::fill(sel.begin(), sel.end(), 0);
    std::fill(ext.begin(), ext.end(), 0);
    sample_multinomial(tokens[s] * M, group_mass, rng, sel);
    if (extra > 0) {
      for (std::size_t k = 0; k < G; ++k) sel_w[k] = static_cast<double>(sel[k]);
      sample_multinomial(tokens[s] * extra, sel_w, rng, ext);
    }
    for (std::size_t k = 0; k < G; ++k) {
      const std::int64_t pairs = base * sel[k] + ext[k];
      if (pairs == 0) continue;
      const auto& js = group_slots[k];
      sub_.resize(js.size());
      tmp_.assign(js.size(), 0);
      for (std::size_t i = 0; i < js.size(); ++i) sub_[i] = w_[c * slots + js[i]];
      sample_multinomial(pairs, sub_, rng, tmp_);
      for (std::size_t i = 0; i < js.size(); ++i)
        if (tmp_[i] != 0) add_pairs(static_cast<int>(s), static_cast<int>(js[i]), tmp_[i], t, out);
    }
  }
}

void RoutingSampler::replay(std::span<const std::int64_t> tokens, const RoutingTargets& t, TraceTokens trace, Rng& rng,
                            LayerCounts& out) {
  const auto K = static_cast<std::size_t>(trace.top_k);
  const std::size_t T = trace.ids.size() / K;
  const auto slots = t.slot_rank.size();
  std::vector<std::vector<std::size_t>> replicas(static_cast<std::size_t>(experts_));
  for (std::size_t j = 0; j < slots; ++j) replicas[static_cast<std::size_t>(t.slot_expert[j])].push_back(j);
  std::size_t cursor = 0;
  for (std::size_t s = 0; s < tokens.size(); ++s) {
    const auto c = static_cast<std::size_t>(t.source_class[s]);
    for (std::int64_t i = 0; i < tokens[s]; ++i, ++cursor) {
      const std::size_t tok = cursor % T;
      for (std::size_t k = 0; k < K; ++k) {
        const auto& reps = replicas[trace.ids[tok * K + k]];
        std::size_t slot = reps.front();
        if (reps.size() > 1) {
          double u = unit_uniform(rng);
          for (auto j : reps) {
            slot = j;
            u -= t.slot_share[c * slots + j];
            if (u < 0) break;
          }
        }
        add_pairs(static_cast<int>(s), static_cast<int>(slot), 1, t, out);
      }
    }
  }
}

}  // namespace moesim::workloads
