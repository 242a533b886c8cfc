#include "sim/law_form.h"

#include <algorithm>
#include <numeric>

#include "sim/check.h"

namespace moesim::sim {

void law_form(const workloads::RoutingTargets& t, std::span<const double> probs, bool keep_experts, LawForm& out,
              std::vector<double>& key) {
  const auto slots = static_cast<std::size_t>(t.slots());
  const auto classes = static_cast<std::size_t>(std::max(1, t.classes));
  MOESIM_CHECK(t.slot_expert.size() == slots && t.slot_share.size() == classes * slots &&
                   probs.size() == static_cast<std::size_t>(t.experts),
               "law form: targets and popularity of different shapes");
  // A slot's probability for a source of class v: its expert's popularity times its share.
  const auto prob = [&](std::uint32_t s, std::size_t v) {
    return probs[static_cast<std::size_t>(t.slot_expert[s])] * t.slot_share[v * slots + s];
  };
  out.order.resize(slots);
  std::iota(out.order.begin(), out.order.end(), 0U);
  // Slots by rank, then (unless experts keep their identity) by their probabilities.
  std::stable_sort(out.order.begin(), out.order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (t.slot_rank[a] != t.slot_rank[b]) return t.slot_rank[a] < t.slot_rank[b];
    if (keep_experts) return false;
    for (std::size_t v = 0; v < classes; ++v)
      if (prob(a, v) != prob(b, v)) return prob(a, v) < prob(b, v);
    return false;
  });
  out.expert.resize(slots);
  for (std::size_t c = 0; c < slots; ++c) {
    out.expert[c] = t.slot_expert[out.order[c]];
    MOESIM_CHECK(out.expert[c] >= 0 && out.expert[c] < t.experts, "law form: a slot holds no expert of the model");
  }
  key.clear();
  key.reserve(4 + 2 * static_cast<std::size_t>(t.ranks) + slots * (classes + 2) + (keep_experts ? probs.size() : 0));
  key.push_back(static_cast<double>(t.ranks));
  key.push_back(static_cast<double>(slots));
  key.push_back(static_cast<double>(classes));
  key.push_back(keep_experts ? 1.0 : 0.0);
  for (const int c : t.source_class) key.push_back(static_cast<double>(c));
  for (int r = 0; r < t.ranks; ++r) key.push_back(static_cast<double>(t.node_of(r)));
  for (const std::uint32_t s : out.order) {
    key.push_back(static_cast<double>(t.slot_rank[s]));
    if (keep_experts) key.push_back(static_cast<double>(t.slot_expert[s]));
    for (std::size_t v = 0; v < classes; ++v) key.push_back(prob(s, v));
  }
  if (keep_experts) key.insert(key.end(), probs.begin(), probs.end());
}

void expert_counts_of(const LawForm& form, std::span<const std::int64_t> canonical, std::span<std::int64_t> out) {
  MOESIM_CHECK(canonical.size() == form.expert.size(), "law form: counts of a different shape");
  std::fill(out.begin(), out.end(), 0);
  const std::int32_t* expert = form.expert.data();
  for (std::size_t c = 0; c < canonical.size(); ++c) out[static_cast<std::size_t>(expert[c])] += canonical[c];
}

}  // namespace moesim::sim
