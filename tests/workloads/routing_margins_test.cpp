// RoutingSampler::draw_margins against the full source x destination draw, aggregated: the same
// distribution of every margin (means and variances over many draws), the same conservation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"

namespace moesim::workloads {
namespace {

// Contiguous experts plus one replica of the hottest experts on the last rank (shares 1/2).
RoutingTargets targets_with_replicas(int experts, int ranks, int ranks_per_node) {
  RoutingTargets t = RoutingTargets::contiguous(experts, ranks);
  for (int e : {0, 1}) {
    t.slot_rank.push_back(ranks - 1);
    t.slot_expert.push_back(e);
    t.slot_share[static_cast<std::size_t>(e)] = 0.5;
    t.slot_share.push_back(0.5);
  }
  for (int r = 0; r < ranks; ++r) t.rank_node.push_back(r / ranks_per_node);
  t.validate();
  return t;
}

// The same, with one class of sources per node and a local replica split: the last node's
// sources send experts 0 and 1 to the replicas on their own node only, the others half to each
// copy (as sim/placement.h's "local" split does).
RoutingTargets targets_with_local_split(int experts, int ranks, int ranks_per_node) {
  RoutingTargets t = targets_with_replicas(experts, ranks, ranks_per_node);
  const auto slots = t.slot_rank.size();
  t.classes = ranks / ranks_per_node;
  for (int r = 0; r < ranks; ++r) t.source_class[static_cast<std::size_t>(r)] = r / ranks_per_node;
  const std::vector<double> one = t.slot_share;
  t.slot_share.clear();
  for (int c = 0; c < t.classes; ++c) {
    std::vector<double> share = one;
    if (c == t.classes - 1)
      for (std::size_t j : {std::size_t{0}, std::size_t{1}}) share[j] = 0.0, share[slots - 2 + j] = 1.0;
    t.slot_share.insert(t.slot_share.end(), share.begin(), share.end());
  }
  t.validate();
  return t;
}

// Every margin as one flat vector of statistics, and the category of each.
constexpr const char* kCategories[] = {"own-node pairs",  "block pairs", "self pairs",           "intra receipts",
                                       "remote receipts", "slot counts", "per-source node pairs"};
constexpr int kNumCategories = 7;
std::vector<double> flatten(const RoutingMargins& m, bool per_source, std::vector<int>* category = nullptr) {
  std::vector<double> v;
  int c = 0;
  for (const auto* part : {&m.own_node_pairs, &m.block_pairs, &m.self_pairs, &m.received_intra, &m.received_remote,
                           &m.slot_counts, &m.node_pairs}) {
    if ((part != &m.node_pairs && part != &m.block_pairs) || per_source)
      for (const auto x : *part) {
        v.push_back(static_cast<double>(x));
        if (category) category->push_back(c);
      }
    ++c;
  }
  return v;
}

struct VectorMoments {
  std::vector<double> sum, sq;
  int n = 0;
  void add(const std::vector<double>& v) {
    if (sum.empty()) sum.assign(v.size(), 0.0), sq.assign(v.size(), 0.0);
    for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i], sq[i] += v[i] * v[i];
    ++n;
  }
  double mean(std::size_t i) const { return sum[i] / n; }
  double var(std::size_t i) const { return sq[i] / n - mean(i) * mean(i); }
};

void check_conservation(const RoutingMargins& m, const RoutingTargets& t, const std::vector<std::int64_t>& tokens,
                        int k) {
  std::int64_t total = 0;
  std::vector<std::int64_t> sent(static_cast<std::size_t>(m.nodes), 0), got(sent);
  for (int s = 0; s < m.ranks; ++s) {
    ASSERT_EQ(m.source_pairs[static_cast<std::size_t>(s)], tokens[static_cast<std::size_t>(s)] * k);
    total += m.source_pairs[static_cast<std::size_t>(s)];
    if (m.per_source()) {
      std::int64_t row = 0;
      for (int n = 0; n < m.nodes; ++n) row += m.pairs_to(s, n);
      ASSERT_EQ(row, m.source_pairs[static_cast<std::size_t>(s)]);
      ASSERT_EQ(m.pairs_to(s, t.node_of(s)), m.own_node_pairs[static_cast<std::size_t>(s)]);
    }
    sent[static_cast<std::size_t>(t.node_of(s))] += m.source_pairs[static_cast<std::size_t>(s)];
    got[static_cast<std::size_t>(t.node_of(s))] += m.own_node_pairs[static_cast<std::size_t>(s)];
  }
  // Each node's sources: own-node pairs plus block pairs to the other nodes.
  for (int a = 0; a < m.nodes && m.per_source(); ++a) {
    std::int64_t out = 0;
    for (int b = 0; b < m.nodes; ++b) out += m.block_pairs[static_cast<std::size_t>(a * m.nodes + b)];
    ASSERT_EQ(out + got[static_cast<std::size_t>(a)], sent[static_cast<std::size_t>(a)]);
  }
  std::int64_t received = 0;
  for (int d = 0; d < m.ranks; ++d) {
    std::int64_t slots = 0;
    for (std::size_t j = 0; j < t.slot_rank.size(); ++j)
      if (t.slot_rank[j] == d) slots += m.slot_counts[j];
    ASSERT_EQ(slots, m.received(d));
    received += m.received(d);
  }
  ASSERT_EQ(received, total);
  // Remote receipts equal the pairs that left their senders' nodes.
  std::int64_t left = 0, arrived = 0;
  for (int s = 0; s < m.ranks; ++s)
    left += m.source_pairs[static_cast<std::size_t>(s)] - m.own_node_pairs[static_cast<std::size_t>(s)];
  for (int d = 0; d < m.ranks; ++d) arrived += m.received_remote[static_cast<std::size_t>(d)];
  ASSERT_EQ(left, arrived);
  // What reaches a node equals what was sent there, from inside and from every other node.
  for (int n = 0; n < m.nodes && m.per_source(); ++n) {
    std::int64_t into = got[static_cast<std::size_t>(n)], reached = 0, remote = 0;
    for (int a = 0; a < m.nodes; ++a) {
      into += m.block_pairs[static_cast<std::size_t>(a * m.nodes + n)];
      remote += m.block_pairs[static_cast<std::size_t>(a * m.nodes + n)];
    }
    std::int64_t remote_got = 0;
    for (int d = 0; d < m.ranks; ++d)
      if (t.node_of(d) == n) reached += m.received(d), remote_got += m.received_remote[static_cast<std::size_t>(d)];
    ASSERT_EQ(into, reached);
    ASSERT_EQ(remote, remote_got);
  }
}

// Compares the two samplers' margins over `draws` draws each: every mean within 5 standard
// errors; per category, the mean ratio of variances within `var_tol` (or four standard errors,
// if larger) of 1, or of the documented inflation (single variances are too noisy at this many
// draws to say more than 25 %).
void compare(const char* model_name, int ranks, int per_node, const std::vector<std::int64_t>& tokens, int draws,
             double var_tol, bool per_source, double intra_inflation = 1.0, int groups = 0, int top_groups = 0,
             bool local_split = false) {
  // Without per-source rows remote receipts are split once over all ranks (routing_margins.h). The
  // bound is for one class of rows; group-limited rows split per (class, group), whose masses sit on
  // the group's ranks, and show no inflation (1.002 over 40,000 draws of this case).
  const int nodes = ranks / per_node;
  const double remote_inflation = per_source || groups > 0 ? 1.0 : 1.0 + 1.0 / (nodes * (nodes - 1) * per_node);
  const int experts = 2 * ranks, k = 4;
  RoutingConfig rc;
  rc.model = routing_model_kind(model_name);
  rc.s = 1.1;
  if (groups > 0) rc.group_limit = {true, groups, top_groups};
  const auto model =
      make_routing_model(rc, RoutingShape{experts, 2, k, std::max(groups, 1), std::max(top_groups, 1)}, 5);
  const auto t = local_split ? targets_with_local_split(experts, ranks, per_node)
                             : targets_with_replicas(experts, ranks, per_node);
  RoutingSampler full(*model, experts, k), fast(*model, experts, k);
  Rng rng_full = make_stream(1, "full"), rng_fast = make_stream(1, "fast");
  VectorMoments a, b;
  LayerCounts counts;
  RoutingMargins m;
  std::vector<int> category;
  for (int i = 0; i < draws; ++i) {
    full.draw(1, i, tokens, t, rng_full, counts);
    aggregate_margins(counts, t, m);
    a.add(flatten(m, per_source));
    fast.draw_margins(1, i, tokens, t, rng_fast, m, per_source);
    check_conservation(m, t, tokens, k);
    category.clear();
    b.add(flatten(m, per_source, &category));
  }
  ASSERT_EQ(a.sum.size(), b.sum.size());
  double ratio_sum[kNumCategories] = {}, ratio_n[kNumCategories] = {};
  for (std::size_t i = 0; i < a.sum.size(); ++i) {
    const double se = std::sqrt((a.var(i) + b.var(i)) / draws);
    EXPECT_NEAR(b.mean(i), a.mean(i), 5 * se + 1e-9) << model_name << " statistic " << i;
    if (a.var(i) > 1.0) {
      const double r = b.var(i) / a.var(i);
      EXPECT_NEAR(r, 1.0, 0.25) << model_name << " statistic " << i;
      ratio_sum[category[i]] += r;
      ratio_n[category[i]] += 1;
    }
  }
  for (int c = 0; c < kNumCategories; ++c) {
    if (ratio_n[c] == 0) continue;
    const double r = ratio_sum[c] / ratio_n[c];
    std::printf("  %s, %d ranks (%d per node), %s: variance ratio %.3f over %.0f statistics\n", model_name, ranks,
                per_node, kCategories[c], r, ratio_n[c]);
    // Internal receipts on nodes above the exact-split size, and remote receipts without
    // per-source rows, carry the documented variance inflation.
    const std::string category = kCategories[c];
    const double expected = category == "intra receipts"    ? intra_inflation
                            : category == "remote receipts" ? remote_inflation
                                                            : 1.0;
    // The noise of a mean of variance ratios shrinks with the statistics averaged (sd ~ 2 / sqrt(draws · n)).
    const double tol = std::max(var_tol, 4 * 2 / std::sqrt(static_cast<double>(draws) * ratio_n[c]));
    EXPECT_NEAR(r, expected, tol) << model_name << " " << kCategories[c];
  }
}

TEST(RoutingMargins, SameDistributionAsTheFullDrawOnSmallNodes) {
  // 4 nodes of 4 ranks: every margin is drawn exactly, with and without per-source node rows.
  const std::vector<std::int64_t> tokens{9, 30, 30, 30, 2, 0, 17, 30, 30, 30, 30, 5, 30, 30, 30, 64};
  for (const bool per_source : {false, true})
    for (const char* name : {"uniform", "zipf"}) compare(name, 16, 4, tokens, 3000, 0.03, per_source);
}

TEST(RoutingMargins, EightRankNodesInflateOnlyTheInternalReceiptVariance) {
  // 3 nodes of 8 (HGX): internal receipts split per node, variance x (1 + 1 / (8 · 6)).
  std::vector<std::int64_t> tokens(24, 30);
  tokens[5] = 80;
  compare("zipf", 24, 8, tokens, 3000, 0.03, false, 1.0 + 1.0 / 48);
}

TEST(RoutingMargins, LargeScaleUpDomainsKeepTheMeansExact) {
  // 2 nodes of 20 ranks (above the exact-split size): internal receipts are split per node.
  std::vector<std::int64_t> tokens(40, 25);
  tokens[3] = 90;
  compare("zipf", 40, 20, tokens, 2000, 0.03, false, 1.0 + 1.0 / 360);
}

TEST(RoutingMargins, GroupLimitedRoutingHasTheFullDrawsDistribution) {
  // DeepSeek-style: 4 groups, each token's pairs in at most 2 of them; per (source, group) rows.
  const std::vector<std::int64_t> tokens{9, 30, 30, 30, 2, 0, 17, 30, 30, 30, 30, 5, 30, 30, 30, 64};
  for (const bool per_source : {false, true}) compare("zipf", 16, 4, tokens, 3000, 0.03, per_source, 1.0, 4, 2);
}

TEST(RoutingMargins, ClassesPerNodeWithALocalReplicaSplitHaveTheFullDrawsDistribution) {
  // One class per node: classes with the same shares on a node are merged before its splits.
  const std::vector<std::int64_t> tokens{9, 30, 30, 30, 2, 0, 17, 30, 30, 30, 30, 5, 30, 30, 30, 64};
  for (const bool per_source : {false, true}) compare("zipf", 16, 4, tokens, 3000, 0.03, per_source, 1.0, 0, 0, true);
  std::vector<std::int64_t> eight(24, 30);
  eight[5] = 80;
  compare("zipf", 24, 8, eight, 3000, 0.03, false, 1.0 + 1.0 / 48, 0, 0, true);
}

TEST(RoutingMargins, ModelMassesFollowTheExpertDistribution) {
  const int experts = 16, ranks = 4, k = 2;
  RoutingConfig rc;
  rc.model = workloads::RoutingModelKind::kHotSet;
  rc.hot_experts = 1;
  rc.hot_fraction = 0.5;
  const auto model = make_routing_model(rc, RoutingShape{experts, 1, k, 1, 1}, 2);
  auto t = RoutingTargets::contiguous(experts, ranks);
  t.rank_node = {0, 0, 1, 1};
  std::vector<double> probs(experts);
  model->expert_distribution(0, 0, probs);
  RoutingSampler sampler(*model, experts, k);
  Rng rng = make_stream(1, "m");
  RoutingMargins m;
  sampler.draw_margins(0, 0, std::vector<std::int64_t>{8, 8, 8, 8}, t, rng, m);
  for (int d = 0; d < ranks; ++d) {
    double expected = 0;
    for (int e = d * 4; e < d * 4 + 4; ++e) expected += probs[static_cast<std::size_t>(e)];
    EXPECT_NEAR(m.rank_mass[static_cast<std::size_t>(d)], expected, 1e-12);
  }
  EXPECT_NEAR(m.node_mass[0], m.rank_mass[0] + m.rank_mass[1], 1e-12);
}

// The sampler keeps each layer's setup between draws: drawing a layer on new targets (or after
// the popularity moved) gives exactly what a fresh sampler gives from the same random state,
// and so do the draws after it on the same targets.
TEST(RoutingMargins, KeptSetupsDrawAsAFreshSampler) {
  const int experts = 32, ranks = 8, k = 4;
  RoutingConfig zipf;
  zipf.model = workloads::RoutingModelKind::kZipf;
  RoutingConfig drift;
  drift.model = workloads::RoutingModelKind::kDirichletDrift;
  const std::vector<std::int64_t> tokens{16, 16, 16, 16, 16, 16, 16, 16};
  RoutingTargets shares = targets_with_replicas(experts, ranks, 4);  // only the replica shares differ
  shares.slot_share[0] = 0.25, shares.slot_share[static_cast<std::size_t>(experts)] = 0.75;
  shares.validate();
  std::vector<RoutingTargets> targets = {
      targets_with_replicas(experts, ranks, 4), shares, targets_with_local_split(experts, ranks, 4),
      targets_with_replicas(experts, ranks, 2), RoutingTargets::contiguous(experts, ranks)};
  // Compared in full (revision 0), then named by revisions (one each, as LayerRouting gives them).
  const std::vector<RoutingTargets> unnamed = targets;
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i].revision = i + 1;
  const std::vector<RoutingTargets>& named = targets;
  for (const std::vector<RoutingTargets>* set : {&unnamed, &named})
    for (const RoutingConfig& rc : {zipf, drift}) {
      const auto model = make_routing_model(rc, RoutingShape{experts, 2, k, 1, 1}, 3);
      RoutingSampler kept(*model, experts, k);
      Rng rng = make_stream(1, "kept");
      std::int64_t step = 0;
      for (int round = 0; round < 2; ++round)
        for (const RoutingTargets& t : *set) {
          RoutingSampler fresh(*model, experts, k);
          for (int again = 0; again < 3; ++again, ++step)  // each layer thrice on the same targets
            for (int layer = 0; layer < 2; ++layer) {
              Rng rng_fresh = rng;
              RoutingMargins a, b;
              kept.draw_margins(layer, step, tokens, t, rng, a);
              fresh.draw_margins(layer, step, tokens, t, rng_fresh, b);
              const std::string what = std::string(to_string(rc.model)) + ", round " + std::to_string(round) +
                                       ", layer " + std::to_string(layer);
              EXPECT_EQ(a.slot_counts, b.slot_counts) << what;
              EXPECT_EQ(a.received_remote, b.received_remote) << what;
              EXPECT_EQ(a.received_intra, b.received_intra) << what;
              EXPECT_EQ(a.self_pairs, b.self_pairs) << what;
              EXPECT_EQ(a.own_node_pairs, b.own_node_pairs) << what;
              EXPECT_EQ(a.rank_mass, b.rank_mass) << what;
              EXPECT_EQ(rng(), rng_fresh()) << what;
            }
        }
    }
}

}  // namespace
}  // namespace moesim::workloads
