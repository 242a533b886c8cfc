// Request routing across instances, end to end: prefix-aware routing sends a conversation back to
// the instance that holds its earlier turns, so more of its prompts hit the cache and TTFT drops;
// round-robin and least-loaded spread it. Every prefix cache conserves its blocks.
#include "sim/request_router.h"

#include <gtest/gtest.h>

#include <map>

#include "sim/deployment_error.h"
#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"
#include "workloads/arrivals.h"

namespace moesim::sim {
namespace {

// Eight single-GPU replicas of the test model serving multi-turn chat.
SimulationConfig chat(RouterPolicy policy) {
  SimulationConfig c = testing::tiny_config(600);
  auto& p = c.deployment.colocated;
  p.instances = 8;
  p.ranks = 1;
  p.attention_dp = 1;
  p.moe_ep = 1;
  c.deployment.router.policy = policy;
  c.workload.arrivals.rate_per_s = 20;
  c.workload.input_tokens = {workloads::LengthDist::kUniform, 0, 100, 600};
  c.workload.output_tokens = {workloads::LengthDist::kUniform, 0, 20, 200};
  c.workload.sessions.enabled = true;
  c.workload.sessions.turns = {workloads::LengthDist::kUniform, 0, 2, 8};
  c.workload.sessions.think_time_s = 1;
  c.workload.sessions.system_prompt_tokens = 2000;
  c.workload.sessions.system_prompts = 4;
  c.workload.prefix_hit.dist = workloads::PrefixHitDist::kCache;
  c.workload.prefix_hit.block_tokens = 16;
  return c;
}

TEST(RequestRouter, RegistryResolvesEveryNameAndListsThemOnAMiss) {
  for (const auto& e : router_policies()) EXPECT_EQ(to_string(router_policy(std::string(e.name))), e.name);
  try {
    router_policy("sticky");
    FAIL();
  } catch (const DeploymentError& e) {
    EXPECT_STREQ(e.what(), "unknown request router policy 'sticky' (valid: least-loaded, round-robin, prefix-aware)");
  }
}

TEST(RequestRouter, PrefixAwareRoutingHitsMoreAndCutsTtft) {
  const auto aware = simulate(chat(RouterPolicy::kPrefixAware));
  const auto least = simulate(chat(RouterPolicy::kLeastLoaded));
  const auto rr = simulate(chat(RouterPolicy::kRoundRobin));
  for (const auto* r : {&aware, &least, &rr}) {
    EXPECT_EQ(r->summary.completed, 600);
    ASSERT_TRUE(r->summary.prefix_cache.has_value());
    ASSERT_EQ(r->pools[0].prefix_caches.size(), 8u);
    const auto& c = *r->summary.prefix_cache;
    EXPECT_EQ(c.lookups, 600);
    EXPECT_EQ(c.inserted_blocks, c.resident_blocks + c.evicted_blocks);
    // The summary's hit tokens are the requests' own.
    std::int64_t cached = 0, input = 0;
    for (const auto& q : r->requests) {
      cached += q.cached_tokens;
      input += q.input_tokens;
      EXPECT_LT(q.cached_tokens, q.input_tokens);
    }
    EXPECT_EQ(cached, c.hit_tokens);
    EXPECT_EQ(input, c.prompt_tokens);
  }
  const double hit_aware = aware.summary.prefix_cache->hit_rate();
  const double hit_rr = rr.summary.prefix_cache->hit_rate();
  EXPECT_GT(hit_aware, hit_rr + 0.15) << hit_aware << " vs " << hit_rr;
  EXPECT_GT(hit_aware, least.summary.prefix_cache->hit_rate());
  EXPECT_LT(aware.summary.ttft.mean_s, rr.summary.ttft.mean_s);
  EXPECT_LT(aware.summary.ttft.mean_s, least.summary.ttft.mean_s);
}

TEST(RequestRouter, RoundRobinTakesInstancesInTurnAndSessionsFollowTheirTurns) {
  auto c = chat(RouterPolicy::kRoundRobin);
  c.workload.sessions.enabled = false;  // plain requests, all with arrival times
  c.workload.prefix_hit = {};
  const auto r = simulate(c);
  for (const auto& q : r.requests) EXPECT_EQ(q.instance, q.id % 8);
  // With sessions, a turn arrives after the one before it is done, plus its think time.
  const auto s = simulate(chat(RouterPolicy::kRoundRobin));
  const auto reqs = s.requests;
  std::int64_t linked = 0;
  for (std::size_t i = 0; i + 1 < reqs.size(); ++i)
    if (reqs[i + 1].arrival_ns > reqs[i].arrival_ns && reqs[i + 1].input_tokens > reqs[i].input_tokens + 20) {
      EXPECT_GE(reqs[i + 1].arrival_ns, reqs[i].finish_ns);
      ++linked;
    }
  EXPECT_GT(linked, 200);
}

TEST(RequestRouter, AnEntryPrefillPoolCachesThePromptsItHandsOver) {
  auto c = chat(RouterPolicy::kPrefixAware);
  c.deployment.disaggregated = true;
  c.deployment.prefill = c.deployment.colocated;
  c.deployment.prefill.role = PoolRole::kPrefill;
  c.deployment.prefill.instances = 4;
  c.deployment.decode = c.deployment.colocated;
  c.deployment.decode.role = PoolRole::kDecode;
  c.deployment.decode.instances = 4;
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 600);
  ASSERT_EQ(r.pools[0].prefix_caches.size(), 4u);  // prefill instances only
  EXPECT_TRUE(r.pools[1].prefix_caches.empty());
  EXPECT_GT(r.summary.prefix_cache->hit_rate(), 0.3);
  // Only the prompts were cached (the replies were generated on decode), so a turn hits at most
  // the turn before it's prompt; colocated, it also hits that turn's reply.
  const auto colocated = simulate(chat(RouterPolicy::kPrefixAware));
  auto rng = workloads::make_stream(c.seed, "arrivals");
  const auto turns = workloads::generate_requests(c.workload, rng);
  std::int64_t past_prompt = 0;
  for (const auto& t : turns) {
    if (t.next_turn < 0) continue;
    const auto next = static_cast<std::size_t>(t.next_turn);
    EXPECT_LE(r.requests[next].cached_tokens, t.input_tokens);
    past_prompt += colocated.requests[next].cached_tokens > t.input_tokens;
  }
  EXPECT_GT(past_prompt, 100);
}

// KV tiers: with HBM too small for the conversations, blocks evicted to host memory are found
// there, loaded back over PCIe (the request waits for its load) and spare the prefill.
TEST(KvTiers, HostMemoryKeepsWhatHbmEvictsAndLoadsItBack) {
  auto c = chat(RouterPolicy::kPrefixAware);
  c.deployment.router.overlap_weight = 20;  // conversations go back to their rank
  // Room for the weights and a few tens of thousands of KV tokens per GPU.
  c.hardware.hbm_bytes = 2.23e9;
  const auto no_tier = simulate(c);
  c.deployment.colocated.kv_tiers.host_bytes = 100e9;
  c.deployment.colocated.kv_tiers.host_bytes_per_s = 50e9;
  const auto tier = simulate(c);
  ASSERT_GT(no_tier.summary.prefix_cache->evicted_blocks, 1000);
  const auto& t = *tier.summary.prefix_cache;
  EXPECT_GT(t.host_hit_tokens, 0);
  EXPECT_EQ(t.remote_hit_tokens, 0);
  EXPECT_GT(t.hit_rate(), no_tier.summary.prefix_cache->hit_rate());
  EXPECT_EQ(t.offloaded_blocks, t.evicted_blocks);
  EXPECT_GT(t.host_resident_blocks, 0);
  // Every load waited for its bytes at the link's rate, and the requests record it.
  EXPECT_GT(t.loads, 0);
  double waited = 0;
  for (const auto& q : tier.requests) waited += static_cast<double>(q.kv_load_ns) * 1e-9;
  EXPECT_NEAR(waited, t.load_wait_s, 1e-6 * t.loads);
  EXPECT_GE(t.load_wait_s, t.host_loaded_bytes / 50e9 * 0.999);
  EXPECT_EQ(tier.summary.completed, 600);
}

}  // namespace
}  // namespace moesim::sim
