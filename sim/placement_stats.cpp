#include "sim/placement_stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/check.h"

namespace moesim::sim {
namespace {

struct Spread {
  double imbalance = 0, cv = 0;
  int argmax = -1;
};

Spread spread(const std::vector<double>& v) {
  Spread s;
  if (v.empty()) return s;
  double sum = 0, sum2 = 0;
  for (double x : v) {
    sum += x;
    sum2 += x * x;
  }
  const double mean = sum / static_cast<double>(v.size());
  s.argmax = static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
  if (mean <= 0) return s;
  s.imbalance = (v[static_cast<std::size_t>(s.argmax)] - mean) / mean;
  s.cv = std::sqrt(std::max(0.0, sum2 / static_cast<double>(v.size()) - mean * mean)) / mean;
  return s;
}

}  // namespace

ImbalanceStats layer_imbalance(const ExpertPlacement& p, std::span<const std::int64_t> slot_counts,
                               double capacity_factor) {
  if (slot_counts.size() != static_cast<std::size_t>(p.slots()))
    throw InvariantError("layer_imbalance: one count per slot expected");
  ImbalanceStats st;
  std::vector<double> rank(static_cast<std::size_t>(p.ranks()), 0.0), slot(slot_counts.size());
  std::vector<double> expert(static_cast<std::size_t>(p.experts()), 0.0);
  for (int s = 0; s < p.slots(); ++s) {
    const auto c = slot_counts[static_cast<std::size_t>(s)];
    st.pairs += c;
    slot[static_cast<std::size_t>(s)] = static_cast<double>(c);
    rank[static_cast<std::size_t>(p.rank_of_slot(s))] += static_cast<double>(c);
    expert[static_cast<std::size_t>(p.expert_of_slot(s))] += static_cast<double>(c);
  }
  const auto r = spread(rank), sl = spread(slot), ex = spread(expert);
  st.rank_imbalance = r.imbalance;
  st.rank_cv = r.cv;
  st.hottest_rank = r.argmax;
  st.slot_imbalance = sl.imbalance;
  st.slot_cv = sl.cv;
  st.hottest_expert = ex.argmax;
  if (st.pairs > 0)
    st.hottest_expert_share = expert[static_cast<std::size_t>(ex.argmax)] / static_cast<double>(st.pairs);
  if (capacity_factor > 0) {
    st.capacity_per_slot =
        static_cast<std::int64_t>(std::ceil(capacity_factor * static_cast<double>(st.pairs) / p.slots()));
    for (auto c : slot_counts) st.dropped += std::max<std::int64_t>(0, c - st.capacity_per_slot);
  }
  return st;
}

}  // namespace moesim::sim
