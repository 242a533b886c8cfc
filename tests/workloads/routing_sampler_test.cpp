#include "workloads/routing_sampler.h"

#include <gtest/gtest.h>

#include "tests/workloads/stats_support.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "workloads/workload_error.h"

#include "models/routing_trace.h"
#include "test_files.h"

namespace moesim::workloads {
namespace {

// Upper α = 0.001 critical values of χ² (NIST/SEMATECH e-Handbook 1.3.6.7.4).
constexpr double kChi2Crit31 = 61.098;

using test::chi_square;

RoutingConfig config(const char* model) {
  RoutingConfig c;
  c.model = routing_model_kind(model);
  c.s = 1.2;
  c.hot_experts = 3;
  c.hot_fraction = 0.5;
  c.alpha = 2.0;
  return c;
}

TEST(RoutingSampler, EveryModelsCountsFollowItsDistribution) {
  const int experts = 32, ranks = 8, k = 4;
  RoutingShape shape{experts, 4, k, 1, 1};
  const auto targets = RoutingTargets::contiguous(experts, ranks);
  for (const char* name : {"uniform", "zipf", "hot-set", "dirichlet-drift"}) {
    const auto model = make_routing_model(config(name), shape, 11);
    RoutingSampler sampler(*model, experts, k);
    std::vector<double> probs(experts);
    model->expert_distribution(2, 5, probs);
    Rng rng = make_stream(1, name);
    std::vector<std::int64_t> total(experts, 0);
    const std::vector<std::int64_t> tokens{64, 64, 64, 64, 7, 0, 300, 64};
    LayerCounts out;
    for (int draw = 0; draw < 2000; ++draw) {
      sampler.draw(2, 5, tokens, targets, rng, out);
      for (int s = 0; s < ranks; ++s) {
        std::int64_t row = 0;
        for (int d = 0; d < ranks; ++d) row += out.pair(s, d);
        ASSERT_EQ(row, tokens[static_cast<std::size_t>(s)] * k) << name;
      }
      for (int d = 0; d < ranks; ++d) {
        std::int64_t slots = 0;
        for (int j = d * 4; j < d * 4 + 4; ++j) slots += out.slot_counts[static_cast<std::size_t>(j)];
        ASSERT_EQ(slots, out.rank_load(d)) << name;  // pairs received = pairs split over local experts
      }
      for (int e = 0; e < experts; ++e)
        total[static_cast<std::size_t>(e)] += out.expert_counts[static_cast<std::size_t>(e)];
    }
    EXPECT_LT(chi_square(total, probs), kChi2Crit31) << name;
  }
}

TEST(RoutingSampler, CellsAreBinomialNotPoisson) {
  // One source's row is Multinomial(n, q): a cell with q = 1/2 has variance n/4, half what the
  // Poisson cells drawn before the row correction have. Pearson per row has mean D - 1.
  const int experts = 8, ranks = 8, k = 1;
  RoutingConfig c = config("hot-set");
  c.hot_experts = 1;
  c.hot_fraction = 0.5;
  const auto model = make_routing_model(c, RoutingShape{experts, 1, k, 1, 1}, 3);
  std::vector<double> probs(experts);
  model->expert_distribution(0, 0, probs);
  const auto hot = static_cast<int>(std::max_element(probs.begin(), probs.end()) - probs.begin());
  RoutingSampler sampler(*model, experts, k);
  const auto targets = RoutingTargets::contiguous(experts, ranks);
  Rng rng = make_stream(2, "cells");
  const std::int64_t n = 400;
  const int draws = 20'000;
  double sum = 0, sum2 = 0, pearson = 0;
  LayerCounts out;
  for (int i = 0; i < draws; ++i) {
    sampler.draw(0, 0, std::vector<std::int64_t>(ranks, n), targets, rng, out);
    const double x = static_cast<double>(out.pair(3, hot));
    sum += x;
    sum2 += x * x;
    std::vector<std::int64_t> row(ranks);
    for (int d = 0; d < ranks; ++d) row[static_cast<std::size_t>(d)] = out.pair(3, d);
    pearson += chi_square(row, probs);
  }
  const double mean = sum / draws, var = sum2 / draws - mean * mean;
  EXPECT_NEAR(mean, n * 0.5, 5 * std::sqrt(n * 0.25 / draws));
  EXPECT_NEAR(var, n * 0.25, 0.05 * n * 0.25);
  EXPECT_NEAR(pearson / draws, 7.0, 5 * std::sqrt(14.0 / draws));
}

TEST(RoutingSampler, ReplicasShareTheirExpertsLoad) {
  // 8 experts, 10 slots on 5 ranks: expert 0 has three replicas (slots 0, 4, 8).
  const int experts = 8, ranks = 5;
  RoutingTargets t;
  t.ranks = ranks;
  t.experts = experts;
  t.slot_expert = {0, 1, 2, 3, 0, 4, 5, 6, 0, 7};
  for (int j = 0; j < 10; ++j) t.slot_rank.push_back(j / 2);
  t.source_class.assign(ranks, 0);
  t.slot_share = {1.0 / 3, 1, 1, 1, 1.0 / 3, 1, 1, 1, 1.0 / 3, 1};
  t.validate();
  RoutingConfig c = config("hot-set");
  c.hot_experts = 1;
  c.hot_fraction = 0.3;
  const auto model = make_routing_model(c, RoutingShape{experts, 1, 2, 1, 1}, 1);
  std::vector<double> probs(experts), slot_probs;
  model->expert_distribution(0, 0, probs);
  for (std::size_t j = 0; j < 10; ++j)
    slot_probs.push_back(probs[static_cast<std::size_t>(t.slot_expert[j])] * t.slot_share[j]);
  RoutingSampler sampler(*model, experts, 2);
  Rng rng = make_stream(3, "replicas");
  std::vector<std::int64_t> total(10, 0);
  LayerCounts out;
  for (int i = 0; i < 3000; ++i) {
    sampler.draw(0, 0, std::vector<std::int64_t>{50, 50, 20, 90, 1}, t, rng, out);
    for (std::size_t j = 0; j < 10; ++j) total[j] += out.slot_counts[j];
  }
  EXPECT_LT(chi_square(total, slot_probs), 27.877);  // χ²(9), α = 0.001
}

TEST(RoutingSampler, GroupLimitClumpsPairsIntoGroups) {
  // 64 experts in 8 groups, top-8 from at most 4 groups: 2 pairs per selected group.
  const int experts = 64, ranks = 8, k = 8;
  RoutingConfig c = config("group-limited");
  c.base = workloads::RoutingModelKind::kUniform;
  const auto model = make_routing_model(c, RoutingShape{experts, 1, k, 8, 4}, 1);
  RoutingSampler sampler(*model, experts, k);
  const auto targets = RoutingTargets::contiguous(experts, ranks);  // group g = rank g
  Rng rng = make_stream(4, "groups");
  const std::int64_t tokens = 100;
  double pearson = 0;
  std::vector<std::int64_t> total(experts, 0);
  const int draws = 4000;
  LayerCounts out;
  for (int i = 0; i < draws; ++i) {
    sampler.draw(0, 0, std::vector<std::int64_t>(ranks, tokens), targets, rng, out);
    std::vector<std::int64_t> row(ranks);
    for (int d = 0; d < ranks; ++d) {
      row[static_cast<std::size_t>(d)] = out.pair(0, d);
      ASSERT_EQ(out.pair(0, d) % 2, 0);  // whole selections of 2 pairs
    }
    pearson += chi_square(row, std::vector<double>(ranks, 1.0 / ranks));
    for (int e = 0; e < experts; ++e)
      total[static_cast<std::size_t>(e)] += out.expert_counts[static_cast<std::size_t>(e)];
  }
  // Group loads are 2 × Multinomial(4·tokens, 1/8): Pearson's mean is (G − 1) · k / M = 14,
  // twice the 7 of independent pairs.
  EXPECT_NEAR(pearson / draws, 14.0, 5 * std::sqrt(2 * 14.0 * 2 / draws));
  // Marginals stay uniform (aggregate over rows; χ² scaled by the clumping factor 2).
  EXPECT_LT(chi_square(total, std::vector<double>(experts, 1.0 / experts)) / 2, 103.442);  // χ²(63)
}

TEST(RoutingSampler, TraceIsReplayedExactly) {
  models::RoutingTrace trace;
  trace.header = {1, 8, 2, false, "t"};
  models::RoutingTraceStep st;
  st.tokens = 3;
  st.ids = {0, 1, 0, 2, 7, 1};
  trace.steps.push_back(st);
  std::ostringstream bytes;
  models::write_routing_trace(bytes, trace);
  testing::TempFile f(".trace", bytes.str());
  RoutingConfig c;
  c.model = workloads::RoutingModelKind::kTrace;
  c.trace_path = f.path();
  const auto model = make_routing_model(c, RoutingShape{8, 1, 2, 1, 1}, 0);
  RoutingSampler sampler(*model, 8, 2);
  const auto targets = RoutingTargets::contiguous(8, 4);
  Rng rng = make_stream(5, "trace");
  LayerCounts out;
  sampler.draw(0, 0, std::vector<std::int64_t>{2, 0, 1, 3}, targets, rng, out);  // 6 tokens: trace twice
  const std::vector<std::int64_t> expect{4, 4, 2, 0, 0, 0, 0, 2};
  EXPECT_EQ(out.expert_counts, expect);
  EXPECT_EQ(out.pair(0, 0), 3);  // tokens 0, 1: experts 0, 1, 0, 2 → ranks 0, 0, 0, 1
  EXPECT_EQ(out.pair(0, 1), 1);
  EXPECT_EQ(out.pair(2, 3), 1);  // token 2: experts 7, 1 → ranks 3, 0
  EXPECT_EQ(out.pair(2, 0), 1);
  c.trace_path = "/nonexistent.trace";
  EXPECT_THROW(make_routing_model(c, RoutingShape{8, 1, 2, 1, 1}, 0), WorkloadError);
}

TEST(RoutingSampler, LargeBatchesTakeTheExactPathAndStayConsistent) {
  const auto model = make_routing_model(config("zipf"), RoutingShape{16, 1, 8, 1, 1}, 2);
  RoutingSampler sampler(*model, 16, 8);
  const auto targets = RoutingTargets::contiguous(16, 2);
  Rng rng = make_stream(6, "large");
  LayerCounts out;
  sampler.draw(0, 0, std::vector<std::int64_t>{200'000, 5}, targets, rng, out);
  EXPECT_EQ(out.pair(0, 0) + out.pair(0, 1), 1'600'000);
  EXPECT_EQ(std::accumulate(out.expert_counts.begin(), out.expert_counts.end(), std::int64_t{0}), 1'600'040);
}

}  // namespace
}  // namespace moesim::workloads
