// Parallel steps (SimulationConfig::threads, sim/step_workers.h): a run whose instances' steps
// are computed on several threads gives what the run on one thread gives, to the bit: every
// request, every step, each pool's per-layer split and load statistics.
#include <gtest/gtest.h>

#include <vector>

#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

// DeepSeek-V3 prefill/decode-disaggregated on 8 HGX H800 nodes: two instances of 16 ranks per
// pool, so steps of four instances overlap.
SimulationConfig four_instances(int threads, int reuse_draws) {
  auto c = testing::dsv3_config(8, 120, 40, 1500, 24);
  c.deployment.disaggregated = true;
  for (PoolConfig* p : {&c.deployment.prefill, &c.deployment.decode}) {
    p->ranks = p->attention_dp = p->moe_ep = 16;
    p->instances = 2;
  }
  c.routing.model = workloads::RoutingModelKind::kZipf;
  c.routing.reuse_draws = reuse_draws;
  c.threads = threads;
  return c;
}

void expect_same(const SimulationResult& a, const SimulationResult& b, const char* what) {
  ASSERT_EQ(a.requests.size(), b.requests.size()) << what;
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    const auto &x = a.requests[i], &y = b.requests[i];
    EXPECT_EQ(x.instance, y.instance) << what << " request " << i;
    EXPECT_EQ(x.rank, y.rank) << what << " request " << i;
    EXPECT_EQ(x.first_token_ns, y.first_token_ns) << what << " request " << i;
    EXPECT_EQ(x.finish_ns, y.finish_ns) << what << " request " << i;
    EXPECT_EQ(x.prefill_done_ns, y.prefill_done_ns) << what << " request " << i;
  }
  ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const auto &x = a.steps[i], &y = b.steps[i];
    EXPECT_TRUE(x.pool == y.pool && x.instance == y.instance && x.start_ns == y.start_ns &&
                x.duration_ns == y.duration_ns && x.decode_tokens == y.decode_tokens &&
                x.prefill_tokens == y.prefill_tokens && x.running == y.running && x.power_w == y.power_w)
        << what << " step " << i;
  }
  EXPECT_EQ(a.events, b.events) << what;
  ASSERT_EQ(a.pools.size(), b.pools.size()) << what;
  for (std::size_t p = 0; p < a.pools.size(); ++p) {
    const LayerBreakdown &x = a.pools[p].breakdown, &y = b.pools[p].breakdown;
    ASSERT_EQ(x.layer_ns.size(), y.layer_ns.size()) << what;
    for (std::size_t l = 0; l < x.layer_ns.size(); ++l) {
      EXPECT_EQ(x.layer_ns[l], y.layer_ns[l]) << what << " pool " << p << " layer " << l;
      EXPECT_EQ(x.wall_ns[l], y.wall_ns[l]) << what << " pool " << p << " layer " << l;
      EXPECT_EQ(x.exposed_comm_ns[l], y.exposed_comm_ns[l]) << what << " pool " << p << " layer " << l;
    }
    EXPECT_EQ(x.dispatch_bytes, y.dispatch_bytes) << what;
    EXPECT_EQ(x.tokens_routed, y.tokens_routed) << what;
    EXPECT_EQ(x.lm_head_ns, y.lm_head_ns) << what;
    EXPECT_EQ(x.runtime_ns, y.runtime_ns) << what;
    const LoadStats &u = a.pools[p].load, &v = b.pools[p].load;
    EXPECT_EQ(u.expert_pairs, v.expert_pairs) << what << " pool " << p;
    EXPECT_EQ(u.link_bytes, v.link_bytes) << what << " pool " << p;
    ASSERT_EQ(u.rank_pairs.buckets(), v.rank_pairs.buckets()) << what;
    for (int k = 0; k < u.rank_pairs.buckets(); ++k)
      for (int r = 0; r < u.rank_pairs.ranks(); ++r) EXPECT_EQ(u.rank_pairs.at(k, r), v.rank_pairs.at(k, r)) << what;
    EXPECT_EQ(a.pools[p].busy_joules, b.pools[p].busy_joules) << what;
  }
  EXPECT_EQ(a.summary.makespan_s, b.summary.makespan_s) << what;
  EXPECT_EQ(a.summary.ttft.p90_s, b.summary.ttft.p90_s) << what;
  EXPECT_EQ(a.summary.tpot.p90_s, b.summary.tpot.p90_s) << what;
}

TEST(ParallelSteps, ThreeThreadsGiveTheOneThreadRunToTheBit) {
  for (const int reuse : {0, 2}) {
    const SimulationResult one = simulate(four_instances(1, reuse));
    ASSERT_EQ(one.summary.completed, 120);
    ASSERT_EQ(one.pools.size(), 2u);
    expect_same(one, simulate(four_instances(3, reuse)), reuse ? "kept draws" : "exact");
  }
}

TEST(ParallelSteps, EachInstanceAppearsInItsPoolsLoadStatistics) {
  // Each instance sums its own load statistics; the pool's hold every instance's ranks.
  const SimulationResult r = simulate(four_instances(2, 0));
  for (const PoolResult& p : r.pools) {
    const LoadStats& load = p.load;
    ASSERT_EQ(load.rank_pairs.ranks(), 2 * 16);
    for (int instance = 0; instance < 2; ++instance) {
      std::int64_t received = 0, steps = 0;
      for (int b = 0; b < load.rank_pairs.buckets(); ++b) {
        for (int k = 0; k < 16; ++k) received += load.rank_pairs.at(b, instance * 16 + k);
        steps += load.step_starts.at(b, instance);
      }
      EXPECT_GT(received, 0) << to_string(p.role) << " instance " << instance;
      EXPECT_GT(steps, 0) << to_string(p.role) << " instance " << instance;
    }
  }
}

}  // namespace
}  // namespace moesim::sim
