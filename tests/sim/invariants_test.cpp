// Each invariant of sim/invariants.h fires on a deliberately broken input to the unit it checks,
// and stays quiet on a consistent one.
#include "sim/invariants.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/check.h"
#include "sim/kv_blocks.h"
#include "sim/scheduler.h"

namespace moesim::sim {
namespace {

// The InvariantError message of `f()`, or "<no error>".
template <class F>
std::string violation(F&& f) {
  try {
    f();
  } catch (const InvariantError& e) {
    return e.what();
  }
  return "<no error>";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Invariants, ClockRunningBackwardsFires) {
  EXPECT_EQ(violation([] { check_clock(Time::from_ns(5), Time::from_ns(5), "queue"); }), "<no error>");
  const std::string e = violation([] { check_clock(Time::from_ns(10), Time::from_ns(7), "queue"); });
  EXPECT_TRUE(contains(e, "queue: the clock ran backwards from 10 ns to 7 ns")) << e;
}

PoolConfig one_rank_pool() {
  PoolConfig p;
  p.ranks = p.attention_dp = p.moe_ep = 1;
  p.batch.max_running_per_rank = 4;
  p.batch.token_budget_per_rank = 64;
  p.batch.kv_block_tokens = 16;
  return p;
}

struct OneRequest {
  OneRequest() {
    workloads::Request q;
    q.input_tokens = 32;
    q.output_tokens = 3;
    reqs.push_back(q);
    recs.resize(1);
    recs[0].input_tokens = 32;
    recs[0].output_tokens = 3;
  }
  std::vector<workloads::Request> reqs;
  std::vector<RequestRecord> recs;
  std::vector<RankBatch> batches;
  ItlSamples itl;
  std::vector<std::size_t> finished, handed;
};

TEST(Invariants, SchedulerStepEndingBeforeTheLastTokenFires) {
  OneRequest in;
  Scheduler s(one_rank_pool(), 1024, in.reqs, in.recs);
  ASSERT_EQ(s.enqueue(0), 0);
  StepRecord rec;
  s.form_batches(in.batches, rec);  // prefill: the first token at 1000 ns
  s.complete_step(Time::from_ns(1000), in.itl, in.finished, in.handed);
  s.form_batches(in.batches, rec);  // a decode step that claims to end before it
  const std::string e = violation([&] { s.complete_step(Time::from_ns(400), in.itl, in.finished, in.handed); });
  EXPECT_TRUE(contains(e, "a request's tokens: the clock ran backwards from 1000 ns to 400 ns")) << e;
}

TEST(Invariants, DispatchedPairsMustEqualCombined) {
  EXPECT_EQ(violation([] { check_layer_pairs(3, 64, 64); }), "<no error>");
  const std::string e = violation([] { check_layer_pairs(3, 64, 63); });
  EXPECT_TRUE(contains(e, "MoE layer 3: 64 token-expert pairs dispatched, 63 processed and combined")) << e;
}

TEST(Invariants, TrafficMustCarryEveryDrawnPair) {
  EXPECT_EQ(violation([] { check_traffic_pairs(2, "sent by", 5, 40, 40); }), "<no error>");
  const std::string e = violation([] { check_traffic_pairs(2, "sent by", 5, 40, 38); });
  EXPECT_TRUE(contains(e, "MoE layer 2: sent by rank 5: 40 token-expert pairs drawn, 38 in the all-to-all traffic"))
      << e;
  const std::string n = violation([] { check_traffic_pairs(0, "sent between nodes", -1, 7, 9); });
  EXPECT_TRUE(contains(n, "MoE layer 0: sent between nodes: 7 token-expert pairs drawn, 9 in the all-to-all traffic"))
      << n;
}

TEST(Invariants, KvBlocksAllocatedMustBeFreed) {
  KvBlocks kv(160, 16);
  std::int64_t held = 0;
  ASSERT_TRUE(kv.grow(held, 40));  // 3 blocks
  EXPECT_EQ(kv.allocated_blocks(), 3);
  const std::string e =
      violation([&] { check_kv_drained(2, kv.allocated_blocks(), kv.freed_blocks(), kv.used_blocks()); });
  EXPECT_TRUE(contains(e, "rank 2: 3 KV blocks allocated, 0 freed, 3 still in use at the end")) << e;
  kv.release(held);
  EXPECT_EQ(violation([&] { check_kv_drained(2, kv.allocated_blocks(), kv.freed_blocks(), kv.used_blocks()); }),
            "<no error>");
  std::int64_t forged = 1;  // a holding the pool never handed out
  EXPECT_TRUE(contains(violation([&] { kv.release(forged); }), "KV blocks released twice"));
}

TEST(Invariants, SchedulerLeftWithWorkIsNotDrained) {
  OneRequest in;
  Scheduler s(one_rank_pool(), 1024, in.reqs, in.recs);
  ASSERT_EQ(s.enqueue(0), 0);
  StepRecord rec;
  s.form_batches(in.batches, rec);  // admitted: its prompt holds two blocks
  EXPECT_TRUE(contains(violation([&] { s.check_drained(); }), "1 requests still outstanding at the end"));
  // Run it to completion: then everything is freed.
  for (std::int64_t t = 1000; !in.finished.size(); t += 1000) {
    s.complete_step(Time::from_ns(t), in.itl, in.finished, in.handed);
    if (in.finished.empty()) s.form_batches(in.batches, rec);
  }
  EXPECT_EQ(violation([&] { s.check_drained(); }), "<no error>");
}

TEST(Invariants, EveryRequestFinishesOrIsRejectedWithAReason) {
  std::vector<RequestRecord> r(3);
  for (std::size_t i = 0; i < r.size(); ++i) r[i].id = static_cast<std::int64_t>(i);
  r[0].first_token_ns = 5, r[0].finish_ns = 9;
  r[1].rejected = "needs 9 KV tokens, a rank holds 8";
  const std::string e = violation([&] { check_requests_accounted(r, false); });
  EXPECT_TRUE(contains(e, "request 2 neither finished nor was rejected with a reason")) << e;
  EXPECT_EQ(violation([&] { check_requests_accounted(r, true); }), "<no error>");  // a partial run: in flight
  r[2].first_token_ns = 3, r[2].finish_ns = 1;
  EXPECT_TRUE(contains(violation([&] { check_requests_accounted(r, false); }),
                       "request 2: arrival 0 ns, first token 3 ns, "
                       "finish 1 ns are out of order"));
  r[2].finish_ns = 4;
  EXPECT_EQ(violation([&] { check_requests_accounted(r, false); }), "<no error>");
  r[1].finish_ns = 7;
  EXPECT_TRUE(contains(violation([&] { check_requests_accounted(r, false); }), "request 1 was rejected"));
}

TEST(Invariants, RankMemoryMustFitTheDevice) {
  models::MemoryPlan plan;
  plan.capacity_bytes = 1000;
  plan.weight_bytes = 500;
  plan.activation_bytes = 100;
  plan.comm_buffer_bytes = 50;
  plan.runtime_reserve_bytes = 50;
  plan.kv_bytes_per_token = 2;
  EXPECT_EQ(violation([&] { check_rank_memory(plan, 150, "decode"); }), "<no error>");  // exactly full
  const std::string e = violation([&] { check_rank_memory(plan, 151, "decode"); });
  EXPECT_TRUE(contains(e,
                       "decode pool: a rank used 1002.000000 bytes (151 KV tokens at peak), more than its "
                       "1000.000000 bytes of memory"))
      << e;
}

}  // namespace
}  // namespace moesim::sim
