// LawForm (sim/law_form.h): the law of a layer's draw up to relabelling slots within ranks.
#include "sim/law_form.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "sim/placement.h"

namespace moesim::sim {
namespace {

constexpr int kExperts = 16, kRanks = 4;

// Zipf-like popularity of the experts in the order `rank_of` gives them (rank_of[e]: e's place),
// with no expert's replica (half its popularity) exactly as popular as another expert: tied slots
// of a rank are exchangeable, so which of them a relabelled layer maps where is free.
std::vector<double> popularity(const std::vector<int>& rank_of) {
  std::vector<double> p(kExperts);
  double sum = 0;
  for (int e = 0; e < kExperts; ++e)
    sum += p[static_cast<std::size_t>(e)] = std::pow(1.3 + rank_of[static_cast<std::size_t>(e)], -0.9);
  for (double& v : p) v /= sum;
  return p;
}

workloads::RoutingTargets placed(PlacementPolicy policy, int redundant, const std::vector<double>& p) {
  PlacementConfig c;
  c.policy = policy;
  c.redundant = redundant;
  PlacementShape s;
  s.experts = kExperts;
  s.ep = kRanks;
  s.redundant = redundant;
  return place_layer(c, s, p).routing_targets(ReplicaSplit::kEven);
}

std::vector<int> identity() {
  std::vector<int> v(kExperts);
  std::iota(v.begin(), v.end(), 0);
  return v;
}
std::vector<int> shuffled() {  // a fixed permutation of the experts' places
  std::vector<int> v = identity();
  for (int e = 0; e < kExperts; ++e) v[static_cast<std::size_t>(e)] = (e * 5 + 3) % kExperts;
  return v;
}

// Layer b is layer a with its experts renamed (b's expert e is a's expert place[e], as popular)
// and each rank's slots listed in another order.
TEST(LawForm, ALayerRelabelledHasTheSameFormAndMapsItsExperts) {
  const auto place = shuffled();
  const auto p = popularity(identity());
  const auto a = placed(PlacementPolicy::kEplb, 4, p);
  std::vector<double> q(kExperts);
  std::vector<int> renamed(kExperts);  // a's expert -> b's
  for (int e = 0; e < kExperts; ++e) {
    const auto ae = static_cast<std::size_t>(place[static_cast<std::size_t>(e)]);
    q[static_cast<std::size_t>(e)] = p[ae];
    renamed[ae] = e;
  }
  workloads::RoutingTargets b = a;
  const std::size_t slots = a.slot_expert.size(), per_rank = slots / kRanks;
  for (std::size_t s = 0; s < slots; ++s) {  // within each rank, slots in reverse order
    const std::size_t from = (s / per_rank) * per_rank + (per_rank - 1 - s % per_rank);
    b.slot_expert[s] = renamed[static_cast<std::size_t>(a.slot_expert[from])];
    b.slot_rank[s] = a.slot_rank[from];
    b.slot_share[s] = a.slot_share[from];
  }
  LawForm fa, fb;
  std::vector<double> ka, kb;
  law_form(a, p, false, fa, ka);
  law_form(b, q, false, fb, kb);
  EXPECT_EQ(ka, kb);
  // Slot counts of a draw in layer a, kept in canonical order, read as b's expert counts: each
  // expert of b gets the pairs of a's expert of the same popularity.
  std::vector<std::int64_t> counts(slots), canonical(slots);
  for (std::size_t s = 0; s < slots; ++s) counts[s] = static_cast<std::int64_t>(10 * s + 1);
  for (std::size_t c = 0; c < slots; ++c) canonical[c] = counts[fa.order[c]];
  std::vector<std::int64_t> in_a(kExperts), in_b(kExperts), direct(kExperts, 0);
  expert_counts_of(fa, canonical, in_a);
  expert_counts_of(fb, canonical, in_b);
  for (std::size_t s = 0; s < slots; ++s) direct[static_cast<std::size_t>(a.slot_expert[s])] += counts[s];
  EXPECT_EQ(in_a, direct);
  for (int e = 0; e < kExperts; ++e)
    EXPECT_EQ(in_b[static_cast<std::size_t>(e)], in_a[static_cast<std::size_t>(place[static_cast<std::size_t>(e)])])
        << "expert " << e;
}

TEST(LawForm, RanksHoldingOtherPopularitiesHaveAnotherForm) {
  // Contiguous placement keeps experts where they are: permuted popularities load the ranks
  // differently.
  const auto p = popularity(identity()), q = popularity(shuffled());
  LawForm fa, fb;
  std::vector<double> ka, kb;
  law_form(placed(PlacementPolicy::kContiguous, 0, p), p, false, fa, ka);
  law_form(placed(PlacementPolicy::kContiguous, 0, q), q, false, fb, kb);
  EXPECT_NE(ka, kb);
}

TEST(LawForm, KeptExpertsShareAFormOnlyWithTheSamePopularityAndPlacement) {
  const auto p = popularity(identity()), q = popularity(shuffled());
  const auto a = placed(PlacementPolicy::kEplb, 4, p), b = placed(PlacementPolicy::kEplb, 4, q);
  LawForm fa, fb, fa2;
  std::vector<double> ka, kb, ka2;
  law_form(a, p, true, fa, ka);
  law_form(b, q, true, fb, kb);
  law_form(placed(PlacementPolicy::kEplb, 4, p), p, true, fa2, ka2);
  EXPECT_NE(ka, kb);
  EXPECT_EQ(ka, ka2);
  for (std::size_t c = 0; c < fa.order.size(); ++c) EXPECT_EQ(fa.order[c], c) << "slots stay in place";
}

}  // namespace
}  // namespace moesim::sim
