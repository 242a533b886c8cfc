// Latency percentiles and the run summary (sim/metrics.h) against cases computed by hand.
//
// Percentiles are nearest-rank over weighted samples: with total weight W, the q-th percentile
// is the smallest value whose cumulative weight reaches ceil(q · W) (at least 1).
#include "sim/metrics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace moesim::sim {
namespace {

using Samples = std::vector<std::pair<std::int64_t, std::int64_t>>;

TEST(LatencyStats, NearestRankOnUnitWeights) {
  // 1..100 ns: rank ceil(0.5 · 100) = 50, ceil(0.9 · 100) = 90, ceil(0.99 · 100) = 99.
  Samples s;
  for (std::int64_t v = 100; v >= 1; --v) s.emplace_back(v, 1);  // unsorted on purpose
  const LatencyStats st = latency_stats(s);
  EXPECT_EQ(st.count, 100);
  EXPECT_DOUBLE_EQ(st.p50_s, 50e-9);
  EXPECT_DOUBLE_EQ(st.p90_s, 90e-9);
  EXPECT_DOUBLE_EQ(st.p99_s, 99e-9);
  EXPECT_DOUBLE_EQ(st.max_s, 100e-9);
  EXPECT_DOUBLE_EQ(st.mean_s, 50.5e-9);
  // Four samples: ranks ceil(2) = 2, ceil(3.6) = 4, ceil(3.96) = 4.
  const LatencyStats four = latency_stats({{40, 1}, {10, 1}, {30, 1}, {20, 1}});
  EXPECT_DOUBLE_EQ(four.p50_s, 20e-9);
  EXPECT_DOUBLE_EQ(four.p90_s, 40e-9);
  EXPECT_DOUBLE_EQ(four.p99_s, 40e-9);
  EXPECT_DOUBLE_EQ(four.mean_s, 25e-9);
  // One sample is every percentile.
  const LatencyStats one = latency_stats({{7, 1}});
  EXPECT_EQ(one.count, 1);
  EXPECT_DOUBLE_EQ(one.p50_s, 7e-9);
  EXPECT_DOUBLE_EQ(one.p99_s, 7e-9);
}

TEST(LatencyStats, WeightsCountAsRepeatedSamples) {
  // (100 ns, 6), (200 ns, 1), (300 ns, 3): W = 10; cumulative 6, 7, 10. p50: rank 5 -> 100 ns;
  // p90: rank 9 -> 300 ns; mean (600 + 200 + 900) / 10 = 170 ns. Ignoring the weights would give
  // p50 200 ns and mean 200 ns.
  const LatencyStats st = latency_stats({{300, 3}, {100, 6}, {200, 1}});
  EXPECT_EQ(st.count, 10);
  EXPECT_DOUBLE_EQ(st.p50_s, 100e-9);
  EXPECT_DOUBLE_EQ(st.p90_s, 300e-9);
  EXPECT_DOUBLE_EQ(st.p99_s, 300e-9);
  EXPECT_DOUBLE_EQ(st.mean_s, 170e-9);
  EXPECT_DOUBLE_EQ(st.max_s, 300e-9);
  // The same as the expanded samples, one by one.
  Samples expanded;
  for (int i = 0; i < 6; ++i) expanded.emplace_back(100, 1);
  expanded.emplace_back(200, 1);
  for (int i = 0; i < 3; ++i) expanded.emplace_back(300, 1);
  const LatencyStats e = latency_stats(expanded);
  EXPECT_DOUBLE_EQ(e.p50_s, st.p50_s);
  EXPECT_DOUBLE_EQ(e.p90_s, st.p90_s);
  EXPECT_DOUBLE_EQ(e.mean_s, st.mean_s);
  // A heavy tail sample: (10 ns, 1), (1000 ns, 99): p50 is the heavy value, not the light one.
  const LatencyStats tail = latency_stats({{10, 1}, {1000, 99}});
  EXPECT_DOUBLE_EQ(tail.p50_s, 1000e-9);
  EXPECT_DOUBLE_EQ(tail.mean_s, (10.0 + 99 * 1000.0) / 100 * 1e-9);
  // Rank exactly on a boundary: W = 20, p90 rank 18 = the last of the first value's 18.
  const LatencyStats edge = latency_stats({{5, 18}, {9, 2}});
  EXPECT_DOUBLE_EQ(edge.p90_s, 5e-9);
  EXPECT_DOUBLE_EQ(edge.p99_s, 9e-9);  // rank ceil(19.8) = 20
}

TEST(LatencyStats, NoSamplesOrNoWeightGiveZeros) {
  for (const Samples& s : {Samples{}, Samples{{5, 0}, {9, 0}}}) {
    const LatencyStats st = latency_stats(s);
    EXPECT_EQ(st.count, 0);
    EXPECT_EQ(st.mean_s, 0.0);
    EXPECT_EQ(st.p50_s, 0.0);
    EXPECT_EQ(st.p99_s, 0.0);
    EXPECT_EQ(st.max_s, 0.0);
  }
}

RequestRecord request(std::int64_t id, double arrival_ms, double first_ms, double finish_ms, std::int64_t in,
                      std::int64_t out) {
  RequestRecord r;
  r.id = id;
  r.arrival_ns = static_cast<std::int64_t>(arrival_ms * 1e6);
  r.first_token_ns = static_cast<std::int64_t>(first_ms * 1e6);
  r.finish_ns = static_cast<std::int64_t>(finish_ms * 1e6);
  r.input_tokens = in;
  r.output_tokens = out;
  return r;
}

TEST(Summarize, LatenciesThroughputAndGoodputByHand) {
  // A: TTFT 100 ms, TPOT (500 - 100) / 4 = 100 ms, e2e 500 ms.
  // B: TTFT 50 ms, TPOT (650 - 250) / 2 = 200 ms, e2e 450 ms, preempted once.
  // C: TTFT 400 ms, one output token (no TPOT sample), e2e 700 ms.
  // D: rejected.
  std::vector<RequestRecord> rs = {request(0, 0, 100, 500, 1000, 5), request(1, 200, 250, 650, 500, 3),
                                   request(2, 300, 700, 1000, 200, 1), request(3, 400, 0, 0, 9000, 9)};
  rs[1].preemptions = 1;
  rs[3].first_token_ns = rs[3].finish_ns = -1;
  rs[3].rejected = "larger than a rank's KV cache";
  const Samples itl = {{50'000'000, 3}, {100'000'000, 1}};
  const Summary s = summarize(rs, itl, 2, SloTargets{0.2, 0.15});
  EXPECT_EQ(s.requests, 4);
  EXPECT_EQ(s.completed, 3);
  EXPECT_EQ(s.rejected, 1);
  EXPECT_EQ(s.preempted, 1);
  EXPECT_EQ(s.input_tokens, 1700);
  EXPECT_EQ(s.output_tokens, 9);
  EXPECT_DOUBLE_EQ(s.makespan_s, 1.0);  // first arrival 0 to last finish 1000 ms
  EXPECT_DOUBLE_EQ(s.output_tokens_per_gpu_s, 9 / 1.0 / 2);
  EXPECT_DOUBLE_EQ(s.input_tokens_per_gpu_s, 1700 / 1.0 / 2);
  // TTFT {50, 100, 400} ms: p50 rank 2 = 100 ms, p90 rank 3 = 400 ms.
  EXPECT_EQ(s.ttft.count, 3);
  EXPECT_DOUBLE_EQ(s.ttft.p50_s, 0.1);
  EXPECT_DOUBLE_EQ(s.ttft.p90_s, 0.4);
  EXPECT_NEAR(s.ttft.mean_s, 0.55 / 3, 1e-15);
  // TPOT {100, 200} ms: p50 rank 1 = 100 ms, p90 rank 2 = 200 ms; e2e {450, 500, 700} ms.
  EXPECT_EQ(s.tpot.count, 2);
  EXPECT_DOUBLE_EQ(s.tpot.p50_s, 0.1);
  EXPECT_DOUBLE_EQ(s.tpot.p90_s, 0.2);
  EXPECT_DOUBLE_EQ(s.e2e.p50_s, 0.5);
  EXPECT_DOUBLE_EQ(s.e2e.max_s, 0.7);
  // ITL (50 ms, 3), (100 ms, 1): p50 50 ms, p90 rank ceil(3.6) = 4 -> 100 ms, mean 62.5 ms.
  EXPECT_EQ(s.itl.count, 4);
  EXPECT_DOUBLE_EQ(s.itl.p50_s, 0.05);
  EXPECT_DOUBLE_EQ(s.itl.p90_s, 0.1);
  EXPECT_DOUBLE_EQ(s.itl.mean_s, 0.0625);
  // SLO TTFT 200 ms and TPOT 150 ms: A meets both, B misses TPOT, C misses TTFT, D was rejected.
  EXPECT_DOUBLE_EQ(s.goodput_requests_per_s, 1.0);
  EXPECT_DOUBLE_EQ(s.slo_attainment, 0.25);
}

TEST(SummarizePool, MeansPerStepOverThePoolsOwnSteps) {
  std::vector<StepRecord> steps(3);
  steps[0] = {0, 0, 0, 2'000'000, 10, 0, 10};
  steps[1] = {1, 0, 0, 9'000'000, 0, 500, 1};  // another pool's step: not counted
  steps[2] = {0, 0, 2'000'000, 4'000'000, 12, 100, 12};
  PoolResult pool;
  pool.breakdown.lm_head_ns = 600;
  summarize_pool(steps, 0, pool);
  EXPECT_EQ(pool.steps, 2);
  EXPECT_DOUBLE_EQ(pool.mean_step_ms, 3.0);
  EXPECT_DOUBLE_EQ(pool.mean_tokens_per_step, (10 + 12 + 100) / 2.0);
  EXPECT_DOUBLE_EQ(pool.lm_head_ns_per_step, 300.0);
}

}  // namespace
}  // namespace moesim::sim
