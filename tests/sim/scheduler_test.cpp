#include "sim/scheduler.h"

#include <gtest/gtest.h>

namespace moesim::sim {
namespace {

std::vector<workloads::Request> requests(int n, std::int64_t input, std::int64_t output) {
  std::vector<workloads::Request> out;
  for (int i = 0; i < n; ++i) {
    workloads::Request r;
    r.id = i;
    r.input_tokens = input;
    r.output_tokens = output;
    out.push_back(r);
  }
  return out;
}

std::vector<RequestRecord> records_for(const std::vector<workloads::Request>& reqs) {
  std::vector<RequestRecord> out(reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    out[i].id = reqs[i].id;
    out[i].input_tokens = reqs[i].input_tokens;
    out[i].output_tokens = reqs[i].output_tokens;
  }
  return out;
}

PoolConfig pool(int ranks, int max_running, std::int64_t budget, PoolRole role = PoolRole::kColocated) {
  PoolConfig p;
  p.role = role;
  p.ranks = p.attention_dp = p.moe_ep = ranks;
  p.batch.max_running_per_rank = max_running;
  p.batch.token_budget_per_rank = budget;
  p.batch.kv_block_tokens = 16;
  return p;
}

struct Harness {
  Harness(PoolConfig p, std::int64_t kv_tokens, std::vector<workloads::Request> r)
      : reqs(std::move(r)), recs(records_for(reqs)), s(p, kv_tokens, reqs, recs) {}
  StepRecord step(std::int64_t end_ns) {
    StepRecord rec;
    s.form_batches(batches, rec);
    finished.clear();
    handed.clear();
    s.complete_step(Time::from_ns(end_ns), itl, finished, handed);
    return rec;
  }
  std::vector<workloads::Request> reqs;
  std::vector<RequestRecord> recs;
  Scheduler s;
  std::vector<RankBatch> batches;
  ItlSamples itl;
  std::vector<std::size_t> finished, handed;
};

TEST(Scheduler, SpreadsArrivalsOverLeastLoadedRanks) {
  Harness h(pool(3, 8, 100), 1'000'000, requests(6, 10, 5));
  std::vector<int> ranks;
  for (std::size_t i = 0; i < 6; ++i) ranks.push_back(h.s.enqueue(i));
  EXPECT_EQ(ranks, (std::vector<int>{0, 1, 2, 0, 1, 2}));
}

TEST(Scheduler, ChunksLongPromptsToTheTokenBudget) {
  Harness h(pool(1, 8, 1000), 1'000'000, requests(1, 2500, 3));
  h.s.enqueue(0);
  std::vector<std::int64_t> chunks;
  std::int64_t t = 0;
  for (int step = 0; step < 3; ++step) {
    StepRecord rec;
    h.s.form_batches(h.batches, rec);
    ASSERT_EQ(h.batches[0].prefill_chunks.size(), 1u);
    EXPECT_EQ(h.batches[0].prefill_chunks[0].past, step * 1000);
    chunks.push_back(h.batches[0].prefill_chunks[0].tokens);
    EXPECT_EQ(h.batches[0].sampled_tokens, step == 2 ? 1 : 0);  // only the last chunk samples
    t += 1000;
    h.s.complete_step(Time::from_ns(t), h.itl, h.finished, h.handed);
  }
  EXPECT_EQ(chunks, (std::vector<std::int64_t>{1000, 1000, 500}));
  EXPECT_EQ(h.recs[0].first_token_ns, 3000);
  for (int step = 0; step < 2; ++step) {  // two decode steps finish the 3-token request
    StepRecord rec;
    h.s.form_batches(h.batches, rec);
    ASSERT_EQ(h.batches[0].decode_kv_lengths.size(), 1u);
    EXPECT_EQ(h.batches[0].decode_kv_lengths[0], 2500 + 1 + step);
    t += 10;
    h.s.complete_step(Time::from_ns(t), h.itl, h.finished, h.handed);
  }
  EXPECT_EQ(h.recs[0].finish_ns, 3020);
  EXPECT_FALSE(h.s.has_work());
  EXPECT_EQ(h.s.kv_blocks_in_use(0), 0);
  ASSERT_EQ(h.itl.size(), 2u);
  EXPECT_EQ(h.itl[0], (std::pair<std::int64_t, std::int64_t>{10, 1}));
}

TEST(Scheduler, CapsRunningRequestsPerRank) {
  Harness h(pool(1, 3, 1000), 1'000'000, requests(10, 4, 100));
  for (std::size_t i = 0; i < 10; ++i) h.s.enqueue(i);
  StepRecord rec;
  h.s.form_batches(h.batches, rec);
  EXPECT_EQ(rec.running, 3);
  EXPECT_EQ(h.batches[0].prefill_chunks.size(), 3u);
}

TEST(Scheduler, KvGrowsByBlocksAndAdmissionWaitsForRoom) {
  // 16-token blocks, 96 tokens = 6 blocks. Each prompt of 40 tokens takes 3 blocks.
  Harness h(pool(1, 8, 1000), 96, requests(3, 40, 8));
  for (std::size_t i = 0; i < 3; ++i) h.s.enqueue(i);
  const StepRecord rec = h.step(100);
  EXPECT_EQ(rec.running, 2);
  EXPECT_EQ(h.s.kv_blocks_in_use(0), 6);
}

TEST(Scheduler, PreemptsTheLatestRequestWhenDecodeRunsOutOfBlocks) {
  // Two 30-token prompts fit in 4 blocks of 16 (2 each); decoding past 32 tokens needs a third
  // block each, so the second request is preempted and recomputed later. Both still finish.
  Harness h(pool(1, 8, 1000), 64, requests(2, 30, 10));
  h.s.enqueue(0);
  h.s.enqueue(1);
  std::int64_t t = 0;
  int guard = 0;
  while (h.s.has_work() && guard++ < 200) h.step(t += 100);
  EXPECT_FALSE(h.s.has_work());
  EXPECT_TRUE(h.recs[0].finished());
  EXPECT_TRUE(h.recs[1].finished());
  EXPECT_GE(h.s.preemptions(), 1);
  EXPECT_EQ(h.recs[0].preemptions, 0);
  EXPECT_GE(h.recs[1].preemptions, 1);
  EXPECT_EQ(h.s.kv_blocks_in_use(0), 0);
  EXPECT_LE(h.s.kv_peak_utilisation(), 1.0);
}

// The same two requests, counted: KV for 4 blocks of 16 tokens. Both prompts (30 tokens, 2 blocks
// each) prefill in step 1, emitting token 1; steps 2 and 3 decode at KV 31 and 32. In step 4
// request 0 needs a third block (KV 33), so request 1 is preempted holding 3 generated tokens: it
// must recompute its prompt and the 2 tokens it had fed (30 + 3 - 1 = 32), once request 0 is
// done. Prefill over the run: 30 + 30 + 32 = 92 tokens.
TEST(Scheduler, PreemptedRequestsRecomputeTheirPromptAndFedTokens) {
  Harness h(pool(1, 8, 1000), 64, requests(2, 30, 10));
  h.s.enqueue(0);
  h.s.enqueue(1);
  std::int64_t t = 0, prefill = 0;
  std::vector<std::int64_t> chunks;
  int guard = 0;
  while (h.s.has_work() && guard++ < 200) {
    const StepRecord rec = h.step(t += 100);
    prefill += rec.prefill_tokens;
    for (const auto& c : h.batches[0].prefill_chunks) chunks.push_back(c.tokens);
  }
  EXPECT_EQ(h.s.preemptions(), 1);
  EXPECT_EQ(h.recs[1].preemptions, 1);
  EXPECT_EQ(chunks, (std::vector<std::int64_t>{30, 30, 32}));
  EXPECT_EQ(prefill, 92);
  EXPECT_TRUE(h.recs[1].finished());
}

// A prefix-cache hit is cached from admission and never computed: a 100-token prompt with 40 %
// cached prefills 60 tokens, starting at position 40, and still decodes at the full KV length.
TEST(Scheduler, PrefixHitsAreNeverComputed) {
  auto reqs = requests(1, 100, 3);
  reqs[0].prefix_hit = 0.4;
  Harness h(pool(1, 8, 1000), 1'000'000, reqs);
  h.s.enqueue(0);
  const StepRecord first = h.step(100);
  EXPECT_EQ(first.prefill_tokens, 60);
  ASSERT_EQ(h.batches[0].prefill_chunks.size(), 1u);
  EXPECT_EQ(h.batches[0].prefill_chunks[0].past, 40);
  EXPECT_EQ(h.batches[0].prefill_chunks[0].tokens, 60);
  const StepRecord second = h.step(200);
  EXPECT_EQ(second.prefill_tokens, 0);
  ASSERT_EQ(h.batches[0].decode_kv_lengths.size(), 1u);
  EXPECT_EQ(h.batches[0].decode_kv_lengths[0], 101);
}

TEST(Scheduler, RejectsRequestsLargerThanARanksCache) {
  Harness h(pool(1, 8, 1000), 64, requests(1, 100, 10));
  EXPECT_EQ(h.s.enqueue(0), -1);
  EXPECT_EQ(h.recs[0].rejected, "needs 110 KV tokens, a rank holds 64");
  EXPECT_FALSE(h.s.has_work());
}

TEST(Scheduler, DecodeTokensComeBeforePrefillInTheBudget) {
  Harness h(pool(1, 8, 8), 1'000'000, requests(2, 8, 50));
  h.s.enqueue(0);
  h.step(100);  // request 0 prefills its 8 tokens
  h.s.enqueue(1);
  StepRecord rec;
  h.s.form_batches(h.batches, rec);
  EXPECT_EQ(rec.decode_tokens, 1);
  EXPECT_EQ(rec.prefill_tokens, 7);  // the budget left after the decode token
}

TEST(Scheduler, PrefillInstanceHandsOverFinishedPrompts) {
  Harness h(pool(1, 8, 1000, PoolRole::kPrefill), 1'000'000, requests(2, 300, 20));
  h.s.enqueue(0);
  h.s.enqueue(1);
  const StepRecord rec = h.step(500);
  EXPECT_EQ(rec.prefill_tokens, 600);
  EXPECT_EQ(h.handed, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(h.recs[0].prefill_done_ns, 500);
  EXPECT_EQ(h.recs[0].first_token_ns, -1);  // set when the decode side has the KV
  EXPECT_FALSE(h.s.has_work());
  EXPECT_EQ(h.s.kv_blocks_in_use(0), 0);
}

TEST(Scheduler, DecodeInstanceOnlyDecodesTransferredPrompts) {
  Harness h(pool(1, 8, 1000, PoolRole::kDecode), 1'000'000, requests(1, 300, 3));
  h.recs[0].first_token_ns = 1000;
  h.s.enqueue(0);
  const StepRecord a = h.step(1100);
  EXPECT_EQ(a.prefill_tokens, 0);
  EXPECT_EQ(a.decode_tokens, 1);
  ASSERT_EQ(h.batches[0].decode_kv_lengths.size(), 1u);
  EXPECT_EQ(h.batches[0].decode_kv_lengths[0], 301);
  h.step(1200);
  EXPECT_EQ(h.recs[0].finish_ns, 1200);
  EXPECT_EQ(h.itl.front().first, 100);
}

}  // namespace
}  // namespace moesim::sim

namespace moesim::sim {
namespace {

// A linear-attention model's requests each hold their fixed state as well as their KV tokens
// (models::MemoryPlan::state_tokens_per_request), so fewer run at once and a request whose
// state does not fit beside its prompt is refused.
TEST(Scheduler, LinearAttentionStateTakesItsTokensFromThePool) {
  // 64 blocks of 16 tokens; prompts of 100 tokens take 7 blocks, with 200 tokens of state 19.
  Harness plain(pool(1, 16, 4096), 1024, requests(16, 100, 10));
  Harness state(pool(1, 16, 4096), 1024, requests(16, 100, 10));
  state.s.reserve_state_tokens(200);
  for (std::size_t i = 0; i < 16; ++i) {
    ASSERT_EQ(plain.s.enqueue(i), 0);
    ASSERT_EQ(state.s.enqueue(i), 0);
  }
  EXPECT_EQ(plain.step(1000).running, 9);  // 9 x 7 = 63 blocks
  EXPECT_EQ(state.step(1000).running, 3);  // 3 x 19 = 57 blocks
  Harness big(pool(1, 16, 4096), 1024, requests(1, 900, 10));
  big.s.reserve_state_tokens(200);
  EXPECT_EQ(big.s.enqueue(0), -1);
  EXPECT_EQ(big.recs[0].rejected,
            "needs 910 KV tokens and 200 tokens' worth of linear-attention state, a rank holds 1024");
}

}  // namespace
}  // namespace moesim::sim
