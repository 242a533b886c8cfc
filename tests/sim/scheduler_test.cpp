#include "sim/scheduler.h"

#include <gtest/gtest.h>

namespace moesim::sim {
namespace {

std::vector<workloads::Request> requests(int n, std::int64_t input, std::int64_t output) {
  std::vector<workloads::Request> out;
  for (int i = 0; i < n; ++i) out.push_back({i, 0, input, output});
  return out;
}

PoolConfig pool(int ranks, int max_running, std::int64_t budget) {
  PoolConfig p;
  p.ranks = p.attention_dp = p.moe_ep = ranks;
  p.batch.max_running_per_rank = max_running;
  p.batch.token_budget_per_rank = budget;
  return p;
}

TEST(Scheduler, SpreadsArrivalsOverLeastLoadedRanks) {
  const auto reqs = requests(6, 10, 5);
  Scheduler s(pool(3, 8, 100), 1'000'000, reqs);
  for (std::size_t i = 0; i < reqs.size(); ++i) s.on_arrival(i, Time::zero());
  EXPECT_EQ(s.records()[0].rank, 0);
  EXPECT_EQ(s.records()[1].rank, 1);
  EXPECT_EQ(s.records()[2].rank, 2);
  EXPECT_EQ(s.records()[3].rank, 0);
}

TEST(Scheduler, ChunksLongPromptsToTheTokenBudget) {
  const auto reqs = requests(1, 2500, 3);
  Scheduler s(pool(1, 8, 1000), 1'000'000, reqs);
  s.on_arrival(0, Time::zero());
  std::vector<RankBatch> batches;
  std::vector<std::pair<std::int64_t, std::int64_t>> itl;
  std::vector<std::int64_t> chunks;
  std::int64_t t = 0;
  for (int step = 0; step < 3; ++step) {
    StepRecord rec;
    s.form_batches(batches, rec);
    ASSERT_EQ(batches[0].prefill_chunks.size(), 1u);
    EXPECT_EQ(batches[0].prefill_chunks[0].past, step * 1000);
    chunks.push_back(batches[0].prefill_chunks[0].tokens);
    EXPECT_EQ(batches[0].sampled_tokens, step == 2 ? 1 : 0);  // only the last chunk samples
    t += 1000;
    s.complete_step(Time::from_ns(t), itl);
  }
  EXPECT_EQ(chunks, (std::vector<std::int64_t>{1000, 1000, 500}));
  EXPECT_EQ(s.records()[0].first_token_ns, 3000);
  // Two more decode steps finish the 3-token request.
  for (int step = 0; step < 2; ++step) {
    StepRecord rec;
    s.form_batches(batches, rec);
    ASSERT_EQ(batches[0].decode_kv_lengths.size(), 1u);
    EXPECT_EQ(batches[0].decode_kv_lengths[0], 2500 + 1 + step);
    t += 10;
    s.complete_step(Time::from_ns(t), itl);
  }
  EXPECT_EQ(s.records()[0].finish_ns, 3020);
  EXPECT_FALSE(s.has_work());
  EXPECT_EQ(s.kv_in_use(0), 0);
  ASSERT_EQ(itl.size(), 2u);
  EXPECT_EQ(itl[0], (std::pair<std::int64_t, std::int64_t>{10, 1}));
}

TEST(Scheduler, CapsRunningRequestsPerRank) {
  const auto reqs = requests(10, 4, 100);
  Scheduler s(pool(1, 3, 1000), 1'000'000, reqs);
  for (std::size_t i = 0; i < reqs.size(); ++i) s.on_arrival(i, Time::zero());
  std::vector<RankBatch> batches;
  StepRecord rec;
  s.form_batches(batches, rec);
  EXPECT_EQ(rec.running, 3);
  EXPECT_EQ(batches[0].prefill_chunks.size(), 3u);
}

TEST(Scheduler, AdmissionWaitsForKvRoom) {
  const auto reqs = requests(3, 60, 40);  // 100 KV tokens each
  Scheduler s(pool(1, 8, 1000), 250, reqs);
  for (std::size_t i = 0; i < reqs.size(); ++i) s.on_arrival(i, Time::zero());
  std::vector<RankBatch> batches;
  StepRecord rec;
  s.form_batches(batches, rec);
  EXPECT_EQ(rec.running, 2);
  EXPECT_EQ(s.kv_in_use(0), 200);
}

TEST(Scheduler, DecodeTokensComeBeforePrefillInTheBudget) {
  const auto reqs = requests(2, 8, 50);
  Scheduler s(pool(1, 8, 8), 1'000'000, reqs);
  std::vector<RankBatch> batches;
  std::vector<std::pair<std::int64_t, std::int64_t>> itl;
  s.on_arrival(0, Time::zero());
  StepRecord rec;
  s.form_batches(batches, rec);  // request 0 prefills its 8 tokens
  s.complete_step(Time::from_ns(100), itl);
  s.on_arrival(1, Time::from_ns(100));
  StepRecord rec2;
  s.form_batches(batches, rec2);
  EXPECT_EQ(rec2.decode_tokens, 1);
  EXPECT_EQ(rec2.prefill_tokens, 7);  // the budget left after the decode token
}

}  // namespace
}  // namespace moesim::sim
