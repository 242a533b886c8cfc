// The variance of the margins' receipts (workloads/routing_margins.h) against its exact value,
// precisely enough to tell the documented inflation of the approximate splits from none.
//
// Case: uniform routing, contiguous experts, every source with the same n tokens of top-k, so
// every rank has mass q = 1/R. In the full draw a source's pairs are Multinomial(nk, q per rank),
// so a receiver d on a node of M ranks gets from each of the other M - 1 ranks of its node an
// independent Binomial(nk, q): Var(intra_d) = (M - 1) nk q (1 - q); likewise from each of the
// R - M ranks outside: Var(remote_d) = (R - M) nk q (1 - q).
//
// The margins split a node's internal pairs once when M > 6: source s keeps r_s internal pairs
// (bound for the node's other ranks), r_s ~ Binomial(nk, (M - 1) q) independently, and the node's
// total T = sum r_s goes to the ranks in one multinomial with probabilities
// (T - r_d) / ((M - 1) T) (the exact expectation of "never to yourself"). With A = T - r_d:
//   E[intra_d | r] = A / (M - 1),  Var(intra_d | r) = A / (M - 1) - A^2 / ((M - 1)^2 T),
//   Var(intra_d) = E[A / (M - 1) - A^2 / ((M - 1)^2 T)] + Var(A) / (M - 1)^2,
// with A ~ Binomial((M - 1) nk, (M - 1) q) and r_d ~ Binomial(nk, (M - 1) q) independent; the
// expectation is summed exactly below. Remote pairs have the same structure one level up: node
// n receives from the others' remote pairs in one multinomial with probabilities
// (T - rem_n) / ((N - 1) T), then splits them evenly over its M ranks, so
// Var(remote_d) = E[G] (M - 1) / M^2 + Var(G) / M^2 with G the node's receipts.
// For 3 nodes of 8 ranks, 30 tokens each, top-4: intra 1.0186 (routing_margins.h's rounder
// 1 + 1/(M(M-2)) says 1.021) and remote 1.0217 (1 + 1/(N(N-1)M) = 1.021); on nodes of 6 ranks
// the internal pairs are split exactly per source: 1.
//
// The statistic is the mean over the 24 ranks of (sample variance / exact variance) over D
// draws. A sample variance of near-normal counts has relative standard deviation sqrt(2 / D)
// (the counts' excess kurtosis, about 1 / 35 here, adds under 2 %), and the ranks' estimates are
// nearly independent (receipts on a node correlate by about -1/(M - 1), their squares by its
// square), so the mean has sd sqrt(2 / (24 D)) = 0.0020 at D = 20,000. The bound, 0.0075, is
// 3.7 sd: a correct sampler fails it about once in 5,000 seeds, and a split without the
// inflation (ratio 1.000, 9 sd from 1.0186) or with double it passes it about never.
#include <gtest/gtest.h>

#include "tests/workloads/stats_support.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"

namespace moesim::workloads {
namespace {

using test::binomial_pmf;

// Mean and variance of what one of `units` units receives when each unit holds `per_unit`
// independent Binomial(trials, p) rows of pairs and the units' total T is split in one
// multinomial with probabilities (T - own) / ((units - 1) T).
struct SplitMoments {
  double mean = 0, var = 0;
};
SplitMoments split_receipts(int units, int per_unit, int trials, double p) {
  const auto others = binomial_pmf((units - 1) * per_unit * trials, p), own = binomial_pmf(per_unit * trials, p);
  const double u = units - 1;
  double mean = 0, cond_var = 0;
  for (std::size_t a = 0; a < others.size(); ++a) {
    if (others[a] < 1e-18) continue;
    for (std::size_t r = 0; r < own.size(); ++r) {
      const double w = others[a] * own[r];
      if (w < 1e-22 || a + r == 0) continue;
      const double A = static_cast<double>(a), T = static_cast<double>(a + r);
      mean += w * A / u;
      cond_var += w * (A / u - A * A / (u * u * T));
    }
  }
  const double var_a = (units - 1) * per_unit * trials * p * (1 - p);
  return {mean, cond_var + var_a / (u * u)};
}

struct Ratios {
  double intra = 0, remote = 0;
};

// Mean over ranks of sample variance / exact variance of the intra and remote receipts.
Ratios measured_ratios(int nodes, int per_node, int tokens, int k, int draws) {
  const int ranks = nodes * per_node, experts = 2 * ranks;
  RoutingConfig rc;
  rc.model = workloads::RoutingModelKind::kUniform;
  const auto model = make_routing_model(rc, RoutingShape{experts, 1, k, 1, 1}, 5);
  RoutingTargets t = RoutingTargets::contiguous(experts, ranks);
  for (int r = 0; r < ranks; ++r) t.rank_node.push_back(r / per_node);
  t.validate();
  RoutingSampler sampler(*model, experts, k);
  Rng rng = make_stream(7, "margins-variance");
  const std::vector<std::int64_t> load(static_cast<std::size_t>(ranks), tokens);
  std::vector<double> s1(2 * static_cast<std::size_t>(ranks), 0.0), s2(s1);
  RoutingMargins m;
  for (int i = 0; i < draws; ++i) {
    sampler.draw_margins(0, i, load, t, rng, m);
    for (std::size_t d = 0; d < static_cast<std::size_t>(ranks); ++d) {
      const double x = static_cast<double>(m.received_intra[d]), y = static_cast<double>(m.received_remote[d]);
      s1[d] += x, s2[d] += x * x;
      s1[ranks + d] += y, s2[ranks + d] += y * y;
    }
  }
  const double q = 1.0 / ranks, nk = static_cast<double>(tokens) * k;
  const double exact_intra = (per_node - 1) * nk * q * (1 - q), exact_remote = (ranks - per_node) * nk * q * (1 - q);
  Ratios out;
  for (std::size_t d = 0; d < static_cast<std::size_t>(ranks); ++d) {
    const double mi = s1[d] / draws, mr = s1[ranks + d] / draws;
    // Means are exact in either split: within 5 standard errors.
    EXPECT_NEAR(mi, (per_node - 1) * nk * q, 5 * std::sqrt(exact_intra * 1.03 / draws)) << "rank " << d;
    EXPECT_NEAR(mr, (ranks - per_node) * nk * q, 5 * std::sqrt(exact_remote * 1.03 / draws)) << "rank " << d;
    out.intra += (s2[d] / draws - mi * mi) * draws / (draws - 1.0) / exact_intra / ranks;
    out.remote += (s2[ranks + d] / draws - mr * mr) * draws / (draws - 1.0) / exact_remote / ranks;
  }
  return out;
}

constexpr int kTokens = 30, kTopK = 4, kDraws = 20000;
constexpr double kBound = 0.0075;  // 3.7 standard deviations of the mean ratio (above)

TEST(RoutingMarginsVariance, EightRankNodesCarryTheSplitsExactInflation) {
  const int nodes = 3, per_node = 8, ranks = nodes * per_node;
  const double q = 1.0 / ranks, nk = kTokens * kTopK;
  const SplitMoments intra = split_receipts(per_node, 1, kTokens * kTopK, (per_node - 1) * q);
  const double intra_expected = intra.var / ((per_node - 1) * nk * q * (1 - q));
  const SplitMoments node = split_receipts(nodes, per_node, kTokens * kTopK, 1 - per_node * q);
  const double remote_var = node.mean * (per_node - 1) / (per_node * per_node) + node.var / (per_node * per_node);
  const double remote_expected = remote_var / ((ranks - per_node) * nk * q * (1 - q));
  // The derivation's figures for this case (printed above the measured ones).
  EXPECT_NEAR(intra_expected, 1.0186, 1e-4);
  EXPECT_NEAR(remote_expected, 1.0217, 1e-4);
  const Ratios r = measured_ratios(nodes, per_node, kTokens, kTopK, kDraws);
  std::printf("  intra receipts: variance ratio %.4f (exact %.4f); remote: %.4f (exact %.4f); %d draws\n", r.intra,
              intra_expected, r.remote, remote_expected, kDraws);
  EXPECT_NEAR(r.intra, intra_expected, kBound);
  EXPECT_NEAR(r.remote, remote_expected, kBound);
}

TEST(RoutingMarginsVariance, SixRankNodesSplitInternalPairsExactly) {
  // 4 nodes of 6: each source's internal pairs are split by itself, so intra receipts have the
  // full draw's variance (ratio 1); the node-level split of remote pairs still inflates them.
  const int nodes = 4, per_node = 6, ranks = nodes * per_node;
  const double q = 1.0 / ranks, nk = kTokens * kTopK;
  const SplitMoments node = split_receipts(nodes, per_node, kTokens * kTopK, 1 - per_node * q);
  const double remote_var = node.mean * (per_node - 1) / (per_node * per_node) + node.var / (per_node * per_node);
  const double remote_expected = remote_var / ((ranks - per_node) * nk * q * (1 - q));
  // The one-multinomial split these nodes do not use would inflate intra receipts this much:
  const SplitMoments intra = split_receipts(per_node, 1, kTokens * kTopK, (per_node - 1) * q);
  const double approximate = intra.var / ((per_node - 1) * nk * q * (1 - q));
  EXPECT_GT(approximate, 1.0 + 4 * kBound);
  const Ratios r = measured_ratios(nodes, per_node, kTokens, kTopK, kDraws);
  std::printf(
      "  intra receipts: variance ratio %.4f (exact 1; the node-level split would give %.4f); remote: %.4f "
      "(exact %.4f)\n",
      r.intra, approximate, r.remote, remote_expected);
  EXPECT_NEAR(r.intra, 1.0, kBound);
  EXPECT_NEAR(r.remote, remote_expected, kBound);
}

}  // namespace
}  // namespace moesim::workloads
