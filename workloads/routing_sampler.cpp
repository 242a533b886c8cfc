#include "workloads/routing_sampler.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "workloads/binomial.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
std::int64_t LayerCounts::rank_load(int dst) const {
  std::int64_t total = 0;
  for (int s = 0; s < ranks; ++s) total += pair(s, dst);
  return total;
}

RoutingSampler::RoutingSampler(const RoutingModel& model, int experts, int top_k)
    : model_(model), experts_(experts), top_k_(top_k), setup_(model, experts) {
  if (experts < 1 || top_k < 1 || top_k > experts) throw WorkloadError("routing sampler needs 1 <= top_k <= experts");
}

void RoutingSampler::check(const RoutingTargets& t) const {
  if (t.experts != experts_ || t.ranks < 1 || t.source_class.size() != static_cast<std::size_t>(t.ranks) ||
      t.slot_expert.size() != t.slot_rank.size() ||
      t.slot_share.size() != static_cast<std::size_t>(t.classes) * t.slot_rank.size())
    throw WorkloadError("routing targets do not match the sampler (experts " + std::to_string(experts_) + ")");
}

void RoutingSampler::reset(const RoutingTargets& t, LayerCounts& out) const {
  check(t);
  out.ranks = t.ranks;
  out.pairs.assign(static_cast<std::size_t>(t.ranks) * static_cast<std::size_t>(t.ranks), 0);
  out.slot_counts.assign(t.slot_rank.size(), 0);
  out.expert_counts.assign(static_cast<std::size_t>(experts_), 0);
}

void RoutingSampler::draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                          const RoutingTargets& t, Rng& rng, LayerCounts& out) {
  reset(t, out);
  if (tokens.size() != static_cast<std::size_t>(t.ranks))
    throw WorkloadError("routing sampler: one token count per source rank expected");
  if (const auto trace = model_.trace_tokens(moe_layer, step); trace && !trace->ids.empty()) {
    replay(tokens, t, *trace, rng, out);
  } else {
    setup_.load(moe_layer, step);
    setup_.class_weights(t, w_, q_);
    if (const auto g = model_.group_limit()) {
      grouped(tokens, t, *g, rng, out);
    } else {
      fast_rows(tokens, t, rng, out);
      split_columns(t, rng, out);
    }
  }
  for (std::size_t j = 0; j < out.slot_counts.size(); ++j)
    out.expert_counts[static_cast<std::size_t>(t.slot_expert[j])] += out.slot_counts[j];
}

void RoutingSampler::fast_rows(std::span<const std::int64_t> tokens, const RoutingTargets& t, Rng& rng,
                               LayerCounts& out) {
  totals_.resize(tokens.size());
  for (std::size_t s = 0; s < tokens.size(); ++s) totals_[s] = tokens[s] * top_k_;
  rows_.draw(totals_, t.source_class, q_, t.ranks, rng, out.pairs);
}

void RoutingSampler::split_columns(const RoutingTargets& t, Rng& rng, LayerCounts& out) {
  const auto D = static_cast<std::size_t>(t.ranks);
  const auto slots = t.slot_rank.size();
  const auto C = static_cast<std::size_t>(t.classes);
  col_.assign(C * D, 0);
  for (std::size_t s = 0; s < D; ++s) {
    const auto c = static_cast<std::size_t>(t.source_class[s]);
    const std::int64_t* row = out.pairs.data() + s * D;
    for (std::size_t d = 0; d < D; ++d) col_[c * D + d] += row[d];
  }
  // Slots grouped by rank (counting sort).
  std::vector<std::size_t> first(D + 1, 0);
  for (auto r : t.slot_rank) ++first[static_cast<std::size_t>(r) + 1];
  for (std::size_t d = 0; d < D; ++d) first[d + 1] += first[d];
  order_.resize(slots);
  {
    auto next = first;
    for (std::size_t j = 0; j < slots; ++j) order_[next[static_cast<std::size_t>(t.slot_rank[j])]++] = j;
  }
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t d = 0; d < D; ++d) {
      const std::int64_t received = col_[c * D + d];
      if (received == 0) continue;
      const std::size_t m = first[d + 1] - first[d];
      sub_.resize(m);
      tmp_.assign(m, 0);
      for (std::size_t i = 0; i < m; ++i) sub_[i] = w_[c * slots + order_[first[d] + i]];
      sample_multinomial(received, sub_, rng, tmp_);
      for (std::size_t i = 0; i < m; ++i) out.slot_counts[order_[first[d] + i]] += tmp_[i];
    }
}

}  // namespace moesim::workloads
