#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "models/memory.h"
#include "sim/deployment.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

TEST(Simulation, EveryRequestCompletesAndTokensAreConserved) {
  const auto config = testing::dsv3_config(2, 120, 40, 1000, 64);
  const auto r = simulate(config);
  ASSERT_EQ(r.requests.size(), 120u);
  std::int64_t generated = 0;
  for (const auto& q : r.requests) {
    ASSERT_TRUE(q.finished()) << "request " << q.id;
    EXPECT_TRUE(q.rejected.empty());
    EXPECT_GE(q.first_token_ns, q.arrival_ns);
    EXPECT_GE(q.finish_ns, q.first_token_ns);
    generated += q.output_tokens;
  }
  EXPECT_EQ(r.summary.completed, 120);
  EXPECT_EQ(r.summary.output_tokens, generated);
  EXPECT_EQ(r.summary.output_tokens, 120 * 64);
  EXPECT_EQ(r.summary.input_tokens, 120 * 1000);
  // Every step's tokens add up to the prompts plus the decoded tokens (the first token of each
  // request comes from its last prefill chunk, so decode steps produce output - 1 per request).
  std::int64_t prefill = 0, decode = 0;
  for (const auto& s : r.steps) {
    prefill += s.prefill_tokens;
    decode += s.decode_tokens;
  }
  EXPECT_EQ(prefill, 120 * 1000);
  EXPECT_EQ(decode, 120 * 63);
  const auto& b = r.pools.at(0).breakdown;
  EXPECT_EQ(b.tokens_routed, b.tokens_combined);
  EXPECT_EQ(b.tokens_routed, (prefill + decode) * config.model.top_k * config.model.num_moe_layers());
}

TEST(Simulation, LatencyMetricsAreConsistent) {
  const auto r = simulate(testing::dsv3_config(2, 100, 30, 800, 40));
  const auto& s = r.summary;
  EXPECT_GT(s.tpot.mean_s, 0);
  EXPECT_GT(s.ttft.mean_s, 0);
  EXPECT_LE(s.ttft.p50_s, s.ttft.p90_s);
  EXPECT_LE(s.ttft.p90_s, s.ttft.p99_s);
  EXPECT_LE(s.ttft.p99_s, s.ttft.max_s);
  EXPECT_LE(s.ttft.max_s, s.e2e.max_s);
  for (const auto& q : r.requests) EXPECT_LE(q.first_token_ns - q.arrival_ns, q.finish_ns - q.arrival_ns);
  // ITL samples: one per decode token; their sum is the time between first and last tokens.
  EXPECT_EQ(s.itl.count, 100 * 39);
  EXPECT_NEAR(s.itl.mean_s, s.tpot.mean_s, s.tpot.mean_s * 1e-6 + 1e-12);
  // Throughput x GPUs x makespan recovers the tokens.
  EXPECT_NEAR(s.output_tokens_per_gpu_s * s.gpus * s.makespan_s, static_cast<double>(s.output_tokens),
              1e-6 * s.output_tokens);
  EXPECT_NEAR(s.input_tokens_per_gpu_s * s.gpus * s.makespan_s, static_cast<double>(s.input_tokens),
              1e-6 * s.input_tokens);
}

TEST(Simulation, SameSeedIsBitForBitReproducible) {
  const auto config = testing::dsv3_config(2, 60, 30, 500, 30);
  const auto a = simulate(config);
  const auto b = simulate(config);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) ASSERT_EQ(a.steps[i].duration_ns, b.steps[i].duration_ns);
  for (std::size_t i = 0; i < a.requests.size(); ++i) ASSERT_EQ(a.requests[i].finish_ns, b.requests[i].finish_ns);
}

TEST(Simulation, DifferentSeedChangesArrivalsAndRouting) {
  auto config = testing::dsv3_config(2, 60, 30, 500, 30);
  const auto a = simulate(config);
  config.seed += 1;
  const auto b = simulate(config);
  EXPECT_NE(a.requests[0].arrival_ns, b.requests[0].arrival_ns);
  EXPECT_NE(a.summary.e2e.mean_s, b.summary.e2e.mean_s);
}

TEST(Simulation, HeavierLoadRaisesLatency) {
  const auto light = simulate(testing::dsv3_config(2, 150, 5, 1000, 50));
  const auto heavy = simulate(testing::dsv3_config(2, 150, 200, 1000, 50));
  EXPECT_GT(heavy.summary.ttft.p90_s, light.summary.ttft.p90_s);
  EXPECT_GT(heavy.pools[0].mean_tokens_per_step, light.pools[0].mean_tokens_per_step);
}

TEST(Simulation, RequestLargerThanKvCacheIsRejectedWithReason) {
  auto config = testing::dsv3_config(2, 5, 10, 100, 10);
  config.workload.input_tokens = {workloads::LengthDist::kFixed, 50'000'000};  // far beyond one rank's KV cache
  const auto r = simulate(config);
  EXPECT_EQ(r.summary.rejected, 5);
  EXPECT_EQ(r.summary.completed, 0);
  EXPECT_NE(r.requests[0].rejected.find("KV tokens"), std::string::npos);
}

TEST(Simulation, OutOfMemoryDeploymentIsReportedWithBreakdown) {
  auto config = testing::dsv3_config(1, 5, 10, 100, 10);  // 671 B FP8 weights on 8 x 80 GB
  try {
    simulate(config);
    FAIL() << "expected DeploymentError";
  } catch (const DeploymentError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out of memory"), std::string::npos) << what;
    EXPECT_NE(what.find("routed experts"), std::string::npos) << what;
    EXPECT_NE(what.find("KV cache"), std::string::npos) << what;
  }
}

TEST(Simulation, TinyModelRunsFast) {
  const auto r = simulate(testing::tiny_config(200));
  EXPECT_EQ(r.summary.completed, 200);
  EXPECT_EQ(r.summary.output_tokens, 200 * 20);
}

SimulationConfig disaggregated(int prefill_instances, int decode_instances) {
  auto c = testing::dsv3_config(8, 80, 20, 2000, 40);
  c.deployment.disaggregated = true;
  for (PoolConfig* p : {&c.deployment.prefill, &c.deployment.decode}) {
    p->ranks = p->attention_dp = p->moe_ep = 16;
  }
  c.deployment.prefill.instances = prefill_instances;
  c.deployment.decode.instances = decode_instances;
  return c;
}

TEST(Disaggregation, KvTransferAppearsInTtft) {
  const auto r = simulate(disaggregated(1, 1));
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_EQ(r.pools[0].role, PoolRole::kPrefill);
  EXPECT_EQ(r.pools[1].role, PoolRole::kDecode);
  EXPECT_EQ(r.summary.completed, 80);
  // A 2000-token DeepSeek-V3 prompt carries 2000 x 61 x 1152 B = 140.5 MB of KV; between
  // nodes at ~48.5 GB/s that is ~2.9 ms after the prefill instance finished it, for the first
  // cache a rank sends. The prompts a prefill step finishes on one rank share its NIC, so they
  // leave in turn: the k-th of them arrives k transfers after the step.
  const double kv_bytes = 2000.0 * 61 * (512 + 64) * 2;
  double shortest = 1e9, longest = 0;
  std::map<std::int64_t, std::vector<double>> by_step;  // hand-off gaps per prefill step end
  for (const auto& q : r.requests) {
    ASSERT_GE(q.prefill_done_ns, q.arrival_ns);
    const double gap_s = (q.first_token_ns - q.prefill_done_ns) * 1e-9;
    shortest = std::min(shortest, gap_s);
    longest = std::max(longest, gap_s);
    by_step[q.prefill_done_ns].push_back(gap_s);
  }
  EXPECT_GT(shortest, kv_bytes / 50e9);
  EXPECT_LT(shortest, kv_bytes / 40e9 + 1e-4);
  EXPECT_GT(longest, 1.9 * shortest);  // 80 prompts over 16 ranks: some rank sends several at once
  // Every prefill step's hand-offs: per group of prompts finished together, each takes one
  // transfer slot on its rank's queue, so the latest arrival is at most the group's size in
  // transfers after the step (the queues start empty: prefill steps outlast a burst here),
  // and the group's gaps sum to at least one transfer each.
  for (const auto& [done, gaps] : by_step) {
    double sum = 0, worst = 0;
    for (const double g : gaps) sum += g, worst = std::max(worst, g);
    EXPECT_LE(worst, static_cast<double>(gaps.size()) * shortest * 1.001 + 1e-6) << done;
    EXPECT_GE(sum, static_cast<double>(gaps.size()) * shortest * 0.999) << done;
  }
  // Prefill steps carry only prompt tokens and decode steps only decode tokens.
  for (const auto& s : r.steps) {
    if (s.pool == 0) {
      EXPECT_EQ(s.decode_tokens, 0);
    } else {
      EXPECT_EQ(s.prefill_tokens, 0);
    }
  }
}

TEST(Disaggregation, DecodeStepsAreFasterThanColocatedOnesWithPrefillMixedIn) {
  const auto pd = simulate(disaggregated(1, 1));
  auto colocated = testing::dsv3_config(4, 80, 20, 2000, 40);
  const auto co = simulate(colocated);
  EXPECT_LT(pd.summary.itl.p99_s, co.summary.itl.p99_s);
}

TEST(Instances, ArrivalsSpreadOverInstances) {
  auto c = testing::dsv3_config(4, 100, 50, 500, 20);
  c.cluster.nodes = 8;
  c.deployment.colocated.instances = 2;
  const auto r = simulate(c);
  int seen[2] = {0, 0};
  for (const auto& q : r.requests) ++seen[q.instance];
  EXPECT_GT(seen[0], 30);
  EXPECT_GT(seen[1], 30);
  EXPECT_EQ(r.summary.gpus, 64);
  EXPECT_EQ(r.pools[0].instances, 2);
}

TEST(Simulation, KvPressureCausesPreemptionsButEveryRequestFinishes) {
  auto c = testing::tiny_config(120);
  c.workload.input_tokens = {workloads::LengthDist::kFixed, 2000};
  c.workload.output_tokens = {workloads::LengthDist::kFixed, 400};
  c.workload.arrivals.rate_per_s = 1000;
  c.deployment.colocated.batch.max_running_per_rank = 512;
  // A device with room for 20,000 KV tokens per rank besides weights and buffers, while the
  // 15 requests per rank eventually need 36,000.
  models::MemoryOptions mem;
  mem.ep = c.deployment.colocated.moe_ep;
  mem.token_budget_per_rank = c.deployment.colocated.batch.token_budget_per_rank;
  mem.capacity_bytes = 0;
  const double others = -models::plan_rank_memory(c.model, mem).kv_bytes;
  c.hardware.hbm_bytes = others + 20000 * c.model.kv_bytes_per_token();
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 120);
  EXPECT_GT(r.pools[0].preemptions, 0);
  EXPECT_GT(r.summary.preempted, 0);
  EXPECT_LE(r.pools[0].kv_peak_utilisation, 1.0);
  EXPECT_GT(r.pools[0].kv_peak_utilisation, 0.9);
}

TEST(Simulation, GoodputCountsRequestsMeetingTheSlo) {
  auto c = testing::dsv3_config(2, 100, 30, 800, 40);
  c.slo = {10.0, 10.0};
  const auto loose = simulate(c);
  EXPECT_DOUBLE_EQ(loose.summary.slo_attainment, 1.0);
  c.slo = {1e-6, 0};
  const auto impossible = simulate(c);
  EXPECT_DOUBLE_EQ(impossible.summary.slo_attainment, 0.0);
  EXPECT_DOUBLE_EQ(impossible.summary.goodput_requests_per_s, 0.0);
}

}  // namespace
}  // namespace moesim::sim
