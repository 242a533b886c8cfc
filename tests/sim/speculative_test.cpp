// Speculative decoding / MTP end to end: tokens per step, ITL convention, throughput at low
// batch, conservation and determinism.
#include <gtest/gtest.h>

#include <cmath>

#include "models/presets.h"
#include "sim/simulation.h"
#include "sim/speculative.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

// tiny-moe given one MTP module, one request of 21 output tokens at a time.
SimulationConfig one_request(int draft_tokens, double acceptance) {
  auto c = testing::tiny_config(1);
  c.model.mtp_layers = 1;
  c.workload.output_tokens = {workloads::LengthDist::kFixed, 21};
  if (draft_tokens > 0) {
    c.deployment.colocated.speculative.method = SpeculativeMethod::kMtp;
    c.deployment.colocated.speculative.tokens = draft_tokens;
    c.deployment.colocated.speculative.acceptance = {acceptance};
  }
  return c;
}

std::int64_t decode_steps(const SimulationResult& r) {
  std::int64_t n = 0;
  for (const auto& s : r.steps) n += s.decode_tokens > 0 ? 1 : 0;
  return n;
}

TEST(Speculative, FullAcceptanceEmitsKPlusOneTokensPerStep) {
  const auto r = simulate(one_request(3, 1.0));
  ASSERT_EQ(r.summary.completed, 1);
  // 20 tokens after the first, 4 per step.
  EXPECT_EQ(decode_steps(r), 5);
  for (const auto& s : r.steps)
    if (s.decode_tokens > 0) {
      EXPECT_EQ(s.decode_tokens, 4);  // the newest token and 3 drafts verified
    }
  EXPECT_EQ(r.pools[0].drafts_proposed, 15);
  EXPECT_EQ(r.pools[0].drafts_accepted, 15);
  // ITL: each step's gap split over its 4 tokens, so the mean ITL is the TPOT.
  EXPECT_EQ(r.summary.itl.count, 20);
  EXPECT_NEAR(r.summary.itl.mean_s, r.summary.tpot.mean_s, 1e-8);
}

TEST(Speculative, ZeroAcceptanceEmitsOneTokenPerStep) {
  const auto r = simulate(one_request(3, 0.0));
  EXPECT_EQ(decode_steps(r), 20);
  EXPECT_EQ(r.pools[0].drafts_accepted, 0);
  EXPECT_EQ(r.summary.output_tokens, 21);
  // Verifying 4 positions and drafting 3 costs more per step than plain decoding.
  const auto plain = simulate(one_request(0, 0.0));
  EXPECT_EQ(decode_steps(plain), 20);
  EXPECT_GT(r.summary.tpot.mean_s, plain.summary.tpot.mean_s);
  EXPECT_EQ(plain.pools[0].drafts_proposed, 0);
}

TEST(Speculative, AcceptanceMatchesLeviathanExpectation) {
  SpeculativeConfig s;
  s.method = SpeculativeMethod::kMtp;
  s.tokens = 4;
  s.acceptance = {0.7};
  // (1 - a^(k+1)) / (1 - a), Leviathan et al. 2023 eq. 1.
  EXPECT_NEAR(expected_emitted_tokens(s), (1 - std::pow(0.7, 5)) / 0.3, 1e-12);
  workloads::Rng rng(9);
  double total = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) total += 1 + draw_accepted(s, rng);
  // Standard error of the mean is about 0.003.
  EXPECT_NEAR(total / kDraws, expected_emitted_tokens(s), 0.015);
  s.acceptance = {0.9, 0.5, 0.0, 1.0};
  EXPECT_NEAR(expected_emitted_tokens(s), 1 + 0.9 + 0.45, 1e-12);
  for (int i = 0; i < 1000; ++i) EXPECT_LE(draw_accepted(s, rng), 2);
}

// DeepSeek-V3 on 4 H800 nodes at low batch: 32 users in a closed loop, one per rank, short
// prompts and long outputs (decode-bound).
SimulationConfig low_batch(bool mtp) {
  auto c = testing::dsv3_config(4, 32, 100, 64, 128);
  c.workload.arrivals.process = workloads::ArrivalProcess::kClosedLoop;
  c.workload.arrivals.concurrency = 32;
  if (mtp) {
    c.deployment.colocated.speculative.method = SpeculativeMethod::kMtp;
    c.deployment.colocated.speculative.tokens = 2;
    c.deployment.colocated.speculative.acceptance = {0.8};
  }
  return c;
}

TEST(Speculative, MtpRaisesTokensPerSecondAtLowBatch) {
  const auto plain = simulate(low_batch(false));
  const auto mtp = simulate(low_batch(true));
  ASSERT_EQ(plain.summary.completed, 32);
  ASSERT_EQ(mtp.summary.completed, 32);
  // 2.44 tokens per step expected; a memory-bound step costs far less than 2.44 x more.
  EXPECT_GT(mtp.summary.output_tokens_per_gpu_s, 1.5 * plain.summary.output_tokens_per_gpu_s);
  EXPECT_LT(mtp.summary.tpot.mean_s, plain.summary.tpot.mean_s / 1.5);
  EXPECT_GT(mtp.pools[0].draft_ns_per_step, 0.0);
  EXPECT_NEAR(mtp.pools[0].acceptance_rate(), (0.8 + 0.64) / 2, 0.05);
}

TEST(Speculative, EveryRequestEndsWithExactlyItsOutputTokens) {
  auto c = testing::tiny_config(120);
  c.model.mtp_layers = 1;
  c.workload.output_tokens = {workloads::LengthDist::kUniform, 0, 2, 40};
  c.deployment.colocated.speculative.method = SpeculativeMethod::kMtp;
  c.deployment.colocated.speculative.tokens = 3;
  c.deployment.colocated.speculative.acceptance = {0.9, 0.7, 0.5};
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 120);
  std::int64_t expected = 0, after_first = 0;
  for (const auto& q : r.requests) {
    EXPECT_TRUE(q.finished()) << q.id;
    EXPECT_GE(q.finish_ns, q.first_token_ns);
    expected += q.output_tokens;
    after_first += q.output_tokens - 1;
  }
  EXPECT_EQ(r.summary.output_tokens, expected);
  EXPECT_EQ(r.summary.itl.count, after_first);  // one ITL sample per token after the first
}

TEST(Speculative, SameSeedSameRunOtherSeedOtherDraws) {
  auto c = testing::tiny_config(60);
  c.model.mtp_layers = 1;
  c.deployment.colocated.speculative.method = SpeculativeMethod::kMtp;
  c.deployment.colocated.speculative.tokens = 2;
  c.deployment.colocated.speculative.acceptance = {0.6};
  const auto a = simulate(c), b = simulate(c);
  c.seed += 1;
  const auto other = simulate(c);
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) EXPECT_EQ(a.requests[i].finish_ns, b.requests[i].finish_ns);
  EXPECT_EQ(a.pools[0].drafts_accepted, b.pools[0].drafts_accepted);
  EXPECT_NE(a.pools[0].drafts_accepted, other.pools[0].drafts_accepted);
}

TEST(Speculative, DraftModelRunsOnTheSameRanks) {
  // tiny-moe drafted by a 2-layer dense copy of itself with attention TP 2.
  auto c = testing::tiny_config(40);
  c.deployment.colocated.attention_dp = 4;
  c.deployment.colocated.attention_tp = 2;
  models::ModelSpec draft = c.model;
  draft.name = "tiny-draft";
  draft.num_layers = 2;
  draft.routed_experts = draft.shared_experts = draft.top_k = 0;
  draft.first_k_dense = 2;
  auto& s = c.deployment.colocated.speculative;
  s.method = SpeculativeMethod::kDraft;
  s.tokens = 2;
  s.acceptance = {0.7};
  s.draft_model = draft;
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 40);
  EXPECT_EQ(r.summary.output_tokens, 40 * 20);
  EXPECT_GT(r.pools[0].draft_ns_per_step, 0.0);
  EXPECT_GT(r.pools[0].drafts_accepted, 0);
}

}  // namespace
}  // namespace moesim::sim
