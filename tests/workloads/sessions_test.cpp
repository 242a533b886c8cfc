// Multi-turn sessions: each turn's prompt is the conversation so far, turns are linked in order,
// and their block names share exactly the conversation's prefix.
#include "workloads/sessions.h"

#include <gtest/gtest.h>

#include <set>

#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

WorkloadConfig chat(std::int64_t requests) {
  WorkloadConfig c;
  c.requests = requests;
  c.arrivals.rate_per_s = 3;
  c.input_tokens = {LengthDist::kUniform, 0, 50, 400};
  c.output_tokens = {LengthDist::kUniform, 0, 20, 300};
  c.sessions.enabled = true;
  c.sessions.turns = {LengthDist::kUniform, 0, 1, 6};
  c.sessions.think_time_s = 2;
  c.sessions.system_prompt_tokens = 1000;
  c.sessions.system_prompts = 2;
  c.prefix_hit.dist = PrefixHitDist::kCache;
  c.prefix_hit.block_tokens = 16;
  return c;
}

TEST(Sessions, EachTurnExtendsTheConversationBeforeIt) {
  Rng rng(5);
  const auto reqs = generate_requests(chat(500), rng);
  ASSERT_EQ(reqs.size(), 500u);
  std::int64_t last_start = -1, follow_ups = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const auto& r = reqs[i];
    EXPECT_EQ(r.id, static_cast<std::int64_t>(i));
    EXPECT_EQ(r.prefix_hit, 0.0);  // the caches decide
    if (r.arrival_ns != kArrivesOnRelease) {
      EXPECT_GE(r.arrival_ns, last_start);  // first turns in arrival order
      last_start = r.arrival_ns;
      EXPECT_GE(r.input_tokens, 1000 + 50);  // the system prompt and a message
      EXPECT_LE(r.input_tokens, 1000 + 400);
    }
    if (r.next_turn < 0) continue;
    const auto& n = reqs[static_cast<std::size_t>(r.next_turn)];
    EXPECT_EQ(r.next_turn, r.id + 1);  // a session's turns are consecutive
    EXPECT_EQ(n.arrival_ns, kArrivesOnRelease);
    EXPECT_GE(n.think_ns, 0);
    // Prompt, reply, then a new message of 50-400 tokens.
    EXPECT_GE(n.input_tokens, r.input_tokens + r.output_tokens + 50);
    EXPECT_LE(n.input_tokens, r.input_tokens + r.output_tokens + 400);
    // The next turn names every full block of this turn's prompt and reply the same way.
    const std::int64_t shared = r.prefix.blocks(r.input_tokens + r.output_tokens, 16);
    EXPECT_EQ(n.prefix.session, r.prefix.session);
    for (std::int64_t j = 0; j < shared; ++j) EXPECT_EQ(n.prefix.block(j, 16), r.prefix.block(j, 16));
    ++follow_ups;
  }
  EXPECT_GT(follow_ups, 250);  // 1-6 turns: about 3.5 per session
}

TEST(Sessions, SystemPromptBlocksAreSharedAcrossSessionsAndTheRestAreNot) {
  Rng rng(9);
  const auto reqs = generate_requests(chat(300), rng);
  std::set<std::uint64_t> systems;
  std::set<std::uint64_t> own;
  for (const auto& r : reqs) {
    if (r.arrival_ns == kArrivesOnRelease) continue;
    systems.insert(r.prefix.block(0, 16));
    // 1000 / 16 = 62 full blocks of system prompt; block 62 holds the message's first tokens.
    EXPECT_TRUE(own.insert(r.prefix.block(62, 16)).second) << "sessions must not share their own blocks";
  }
  EXPECT_EQ(systems.size(), 2u);  // two system prompts, each shared by many sessions
}

TEST(Sessions, OnlyOpenLoopProcessesStartThem) {
  auto c = chat(10);
  c.arrivals.process = ArrivalProcess::kClosedLoop;
  Rng rng(1);
  EXPECT_THROW(generate_requests(c, rng), WorkloadError);
}

TEST(Sessions, TraceHashIdsBecomeBlockNames) {
  PrefixKey k;
  k.hashes = {7, 8, 9};
  EXPECT_EQ(k.blocks(1200, 512), 3);  // the last block may be partial
  EXPECT_EQ(k.blocks(600, 512), 2);
  EXPECT_EQ(k.block(1, 512), 8u);
  EXPECT_TRUE(PrefixKey{}.empty());
}

}  // namespace
}  // namespace moesim::workloads
