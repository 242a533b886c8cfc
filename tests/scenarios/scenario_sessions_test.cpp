// The request router and multi-turn sessions keys: typed values and exact one-line errors.
#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "sim/request_router.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::load_error;

constexpr std::string_view kChat =
    "model: tiny-moe\nhardware: h800\ncluster: {nodes: 1}\n"
    "deployment:\n  router: {policy: prefix-aware, overlap_weight: 2}\n  colocated: {instances: 8, ranks: 1}\n"
    "workload:\n  requests: 50\n  arrivals: {process: poisson, rate: 4/s}\n"
    "  sessions: {turns: {dist: uniform, min: 2, max: 6}, think_time: 3s, system_prompt_tokens: 800, "
    "system_prompts: 3}\n";

TEST(ScenarioSessions, RouterAndSessionsGiveTypedValues) {
  const Scenario s = load_scenario_string(kChat, "scn.yaml");
  EXPECT_EQ(s.deployment.router.policy, sim::RouterPolicy::kPrefixAware);
  EXPECT_EQ(s.deployment.router.overlap_weight, 2.0);
  const auto& se = s.workload.sessions;
  EXPECT_TRUE(se.enabled);
  EXPECT_EQ(se.turns.dist, workloads::LengthDist::kUniform);
  EXPECT_EQ(se.turns.max, 6);
  EXPECT_EQ(se.think_time_s, 3.0);
  EXPECT_EQ(se.system_prompt_tokens, 800);
  EXPECT_EQ(se.system_prompts, 3);
  // Sessions take their hits from the caches, matched at vLLM's default block size.
  EXPECT_EQ(s.workload.prefix_hit.dist, workloads::PrefixHitDist::kCache);
  EXPECT_EQ(s.workload.prefix_hit.block_tokens, 16);
  // Without a router key the policy is least-loaded, as before.
  EXPECT_EQ(load_scenario_string(kMinimal, "scn.yaml").deployment.router.policy, sim::RouterPolicy::kLeastLoaded);
}

TEST(ScenarioSessions, ErrorsNameTheKey) {
  const std::string base(kMinimal);
  EXPECT_EQ(load_error(base + "  router: {policy: sticky}\n"),
            "scn.yaml:7:20: deployment.router.policy: unknown request router policy 'sticky' (valid: least-loaded, "
            "round-robin, prefix-aware)");
  EXPECT_EQ(load_error(base + "  router: {overlap_weight: -1}\n"),
            "scn.yaml:7:28: deployment.router.overlap_weight: expected a weight >= 0, got '-1'");
  EXPECT_EQ(load_error(base + "workload:\n  arrivals: {process: closed-loop, concurrency: 4}\n  sessions: {}\n"),
            "scn.yaml:9:3: workload.sessions: sessions start by an open-loop arrival process (poisson, gamma or "
            "constant), not 'closed-loop'");
  EXPECT_EQ(load_error(base + "workload:\n  sessions: {}\n  prefix_hit: 0.5\n"),
            "scn.yaml:9:3: workload.prefix_hit: with sessions, prefix hits come from the prefix caches: give "
            "prefix_hit {dist: cache} or leave it out");
  EXPECT_EQ(load_error(base + "workload:\n  prefix_hit: {dist: cache}\n"),
            "scn.yaml:8:3: workload.prefix_hit: prefix hit 'cache' needs named blocks: arrivals process 'trace' (its "
            "hash_ids) or sessions (their conversations)");
  EXPECT_EQ(load_error(base + "workload:\n  sessions: {turn: {dist: fixed, value: 3}}\n"),
            "scn.yaml:8:14: workload.sessions.turn: unknown key 'turn'; did you mean 'turns'?");
}

TEST(ScenarioSessions, KvTiersAreSizedAndNeedPrefixCaches) {
  std::string yaml(kChat);
  const std::string pool = "colocated: {instances: 8, ranks: 1}";
  yaml.replace(yaml.find(pool), pool.size(),
               "colocated: {instances: 8, ranks: 1, kv_tiers: {host: 200GB, host_bandwidth: 64GB/s, remote: 1TB}}");
  const Scenario s = load_scenario_string(yaml, "scn.yaml");
  const auto& t = s.deployment.colocated.kv_tiers;
  EXPECT_EQ(t.host_bytes, 200e9);
  EXPECT_EQ(t.host_bytes_per_s, 64e9);
  EXPECT_EQ(t.remote_bytes, 1e12);
  EXPECT_EQ(t.remote_bytes_per_s, 0.0);  // the NIC's rate
  const std::string base(kMinimal);
  EXPECT_EQ(load_error(base + "    kv_tiers: {host: 200GB}\n"),
            "scn.yaml:7:15: deployment.colocated.kv_tiers: a host tier needs host_bandwidth (the host-to-GPU rate per "
            "rank, PCIe)");
  EXPECT_EQ(load_error(base + "    kv_tiers: {remote: 1TB}\n"),
            "scn.yaml:5:3: deployment.colocated.kv_tiers: KV tiers hold prefix-cache blocks: give workload "
            "prefix_hit {dist: cache} (sessions, or a trace with hash_ids)");
  EXPECT_EQ(load_error(base + "    kv_tiers: {host: 0GB, host_bandwidth: 1GB/s}\n"),
            "scn.yaml:7:22: deployment.colocated.kv_tiers.host: expected a value above 0, got '0GB'");
}

}  // namespace
}  // namespace moesim::scenarios
