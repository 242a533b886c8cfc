#include "workloads/routing_sampler.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "workloads/binomial.h"

namespace moesim::workloads {
namespace {

// Above this cell mean, rows use exact conditional binomials (tables would be large).
constexpr double kMaxTableMean = 1e5;

}  // namespace

std::int64_t LayerCounts::rank_load(int dst) const {
  std::int64_t total = 0;
  for (int s = 0; s < ranks; ++s) total += pair(s, dst);
  return total;
}

RoutingSampler::RoutingSampler(const RoutingModel& model, int experts, int top_k)
    : model_(model), experts_(experts), top_k_(top_k), probs_(static_cast<std::size_t>(experts)) {
  if (experts < 1 || top_k < 1 || top_k > experts)
    throw std::invalid_argument("routing sampler needs 1 <= top_k <= experts");
}

void RoutingSampler::reset(const RoutingTargets& t, LayerCounts& out) const {
  if (t.experts != experts_ || t.ranks < 1 || t.source_class.size() != static_cast<std::size_t>(t.ranks) ||
      t.slot_expert.size() != t.slot_rank.size() ||
      t.slot_share.size() != static_cast<std::size_t>(t.classes) * t.slot_rank.size())
    throw std::invalid_argument("routing targets do not match the sampler (experts " + std::to_string(experts_) + ")");
  out.ranks = t.ranks;
  out.pairs.assign(static_cast<std::size_t>(t.ranks) * static_cast<std::size_t>(t.ranks), 0);
  out.slot_counts.assign(t.slot_rank.size(), 0);
  out.expert_counts.assign(static_cast<std::size_t>(experts_), 0);
}

void RoutingSampler::class_weights(const RoutingTargets& t) {
  const auto slots = t.slot_rank.size();
  const auto D = static_cast<std::size_t>(t.ranks);
  w_.assign(static_cast<std::size_t>(t.classes) * slots, 0.0);
  q_.assign(static_cast<std::size_t>(t.classes) * D, 0.0);
  for (std::size_t c = 0; c < static_cast<std::size_t>(t.classes); ++c)
    for (std::size_t j = 0; j < slots; ++j) {
      const double w = probs_[static_cast<std::size_t>(t.slot_expert[j])] * t.slot_share[c * slots + j];
      w_[c * slots + j] = w;
      q_[c * D + static_cast<std::size_t>(t.slot_rank[j])] += w;
    }
}

void RoutingSampler::draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                          const RoutingTargets& t, Rng& rng, LayerCounts& out) {
  reset(t, out);
  if (tokens.size() != static_cast<std::size_t>(t.ranks))
    throw std::invalid_argument("routing sampler: one token count per source rank expected");
  if (const auto trace = model_.trace_tokens(moe_layer, step); trace && !trace->ids.empty()) {
    replay(tokens, t, *trace, rng, out);
  } else {
    const std::size_t key = model_.is_static() ? 0 : static_cast<std::size_t>(std::max(0, moe_layer));
    if (model_.is_step_invariant()) {
      if (key >= cached_.size()) cached_.resize(key + 1);
      if (cached_[key].empty()) {
        cached_[key].resize(probs_.size());
        model_.expert_distribution(moe_layer, step, cached_[key]);
      }
      probs_ = cached_[key];
    } else {
      model_.expert_distribution(moe_layer, step, probs_);
    }
    class_weights(t);
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
  const auto D = static_cast<std::size_t>(t.ranks);
  order_.resize(D);
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(t.source_class[a], tokens[a]) < std::pair(t.source_class[b], tokens[b]);
  });
  alias_.resize(static_cast<std::size_t>(t.classes));
  std::vector<char> alias_built(static_cast<std::size_t>(t.classes), 0);
  fenwick_.resize(D + 1);
  int top_bit = 1;
  while (static_cast<std::size_t>(top_bit) * 2 <= D) top_bit *= 2;

  for (std::size_t begin = 0; begin < D;) {
    const std::size_t s0 = order_[begin];
    const auto c = static_cast<std::size_t>(t.source_class[s0]);
    std::size_t end = begin + 1;
    while (end < D && t.source_class[order_[end]] == t.source_class[s0] && tokens[order_[end]] == tokens[s0]) ++end;
    const std::int64_t n = tokens[s0] * top_k_;
    const std::span<const double> q(q_.data() + c * D, D);
    if (n <= 0) {
      begin = end;
      continue;
    }
    const double qmax = *std::max_element(q.begin(), q.end());
    if (static_cast<double>(n) * qmax > kMaxTableMean) {
      for (std::size_t i = begin; i < end; ++i)
        sample_multinomial(n, q, rng, std::span(out.pairs).subspan(order_[i] * D, D));
      begin = end;
      continue;
    }
    // Column by column: one table per destination, shared by every row of the run (L1-resident).
    FastBits bits{rng()};
    const std::size_t rows = end - begin;
    tmp_.assign(rows, 0);
    for (std::size_t d = 0; d < D; ++d) {
      table_.build(static_cast<double>(n) * q[d]);
      std::size_t i = 0;
      for (; i + 1 < rows; i += 2) {
        const std::uint64_t r = bits();
        const auto a = table_(static_cast<std::uint32_t>(r)), b = table_(static_cast<std::uint32_t>(r >> 32));
        out.pairs[order_[begin + i] * D + d] = a;
        out.pairs[order_[begin + i + 1] * D + d] = b;
        tmp_[i] += a;
        tmp_[i + 1] += b;
      }
      if (i < rows) tmp_[i] += out.pairs[order_[begin + i] * D + d] = table_(static_cast<std::uint32_t>(bits()));
    }
    for (std::size_t i = begin; i < end; ++i) {
      std::int64_t* row = out.pairs.data() + order_[i] * D;
      std::int64_t total = tmp_[i - begin];
      if (total < n) {  // add i.i.d. categorical pairs
        if (!alias_built[c]) {
          alias_[c].build(q);
          alias_built[c] = 1;
        }
        for (; total < n; ++total) ++row[alias_[c](bits())];
      } else if (total > n) {  // remove pairs chosen uniformly among those drawn
        std::fill(fenwick_.begin(), fenwick_.end(), 0);
        for (std::size_t k = 1; k <= D; ++k) {
          fenwick_[k] += row[k - 1];
          if (const std::size_t up = k + (k & (~k + 1)); up <= D) fenwick_[up] += fenwick_[k];
        }
        for (; total > n; --total) {
          auto u = static_cast<std::int64_t>(((bits() >> 32) * static_cast<std::uint64_t>(total)) >> 32);
          std::size_t pos = 0;
          for (auto bit = static_cast<std::size_t>(top_bit); bit > 0; bit >>= 1)
            if (pos + bit <= D && fenwick_[pos + bit] <= u) {
              pos += bit;
              u -= fenwick_[pos];
            }
          --row[pos];
          for (std::size_t k = pos + 1; k <= D; k += k & (~k + 1)) --fenwick_[k];
        }
      }
    }
    begin = end;
  }
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
