// The seed's claims about skew, redundancy, communication algorithms and arrivals, end to end.
#include <gtest/gtest.h>

#include "models/presets.h"
#include "sim/moe_comm.h"
#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

// DeepSeek-V3 decode-heavy load on 4 nodes (EP32).
SimulationConfig decode_heavy() {
  auto c = testing::dsv3_config(4, 256, 400, 256, 64);
  c.deployment.colocated.batch.max_running_per_rank = 16;
  return c;
}

TEST(Skew, ZipfRoutingRaisesTpotAndRedundantExpertsLowerIt) {
  auto uniform = decode_heavy();
  auto skewed = decode_heavy();
  skewed.routing.model = workloads::RoutingModelKind::kZipf;
  skewed.routing.s = 1.2;
  auto balanced = skewed;
  balanced.deployment.colocated.placement.policy = PlacementPolicy::kEplb;
  balanced.deployment.colocated.placement.redundant = 32;
  const auto u = simulate(uniform), z = simulate(skewed), b = simulate(balanced);
  EXPECT_GT(z.summary.tpot.mean_s, 1.05 * u.summary.tpot.mean_s);
  EXPECT_LT(b.summary.tpot.mean_s, z.summary.tpot.mean_s);
  // The hot ranks show up as a longer expert GEMM and a longer combine per MoE layer.
  const auto gemm = [](const SimulationResult& r) {
    return r.pools[0].phase_ns_per_step[static_cast<int>(Phase::kExpertGemm)];
  };
  EXPECT_GT(gemm(z), gemm(u));
  EXPECT_LT(gemm(b), gemm(z));
}

TEST(Communication, LowLatencyKernelsSendMoreBytesThanDirect) {
  auto direct = decode_heavy();
  auto ll = decode_heavy();
  ll.deployment.colocated.comm.all_to_all = sim::find_moe_comm("low-latency");
  auto hier = decode_heavy();
  hier.deployment.colocated.comm.all_to_all = sim::find_moe_comm("hierarchical");
  const auto d = simulate(direct), l = simulate(ll), h = simulate(hier);
  EXPECT_GT(l.pools[0].breakdown.dispatch_bytes, d.pools[0].breakdown.dispatch_bytes);
  EXPECT_EQ(d.summary.completed, 256);
  EXPECT_EQ(l.summary.completed, 256);
  EXPECT_EQ(h.summary.completed, 256);
}

TEST(Rebalancing, EplbReplacesFromObservedLoadAndChargesTheMigration) {
  auto c = decode_heavy();
  c.routing.model = workloads::RoutingModelKind::kDirichletDrift;
  c.deployment.colocated.placement.policy = PlacementPolicy::kEplb;
  c.deployment.colocated.placement.redundant = 32;
  c.deployment.colocated.placement.rebalance_interval_s = 0.2;
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 256);
  EXPECT_GT(r.pools[0].rebalances, 0);
  EXPECT_GT(r.pools[0].migration_s, 0.0);
}

TEST(ClosedLoop, KeepsConcurrencyRequestsInFlight) {
  auto c = testing::tiny_config(60);
  c.workload.arrivals.process = workloads::ArrivalProcess::kClosedLoop;
  c.workload.arrivals.concurrency = 4;
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 60);
  // Every request after the first four arrives exactly when an earlier one finished.
  int released_at_finish = 0;
  for (std::size_t i = 4; i < r.requests.size(); ++i)
    for (const auto& q : r.requests)
      if (q.finish_ns == r.requests[i].arrival_ns) {
        ++released_at_finish;
        break;
      }
  EXPECT_EQ(released_at_finish, 56);
  for (const auto& s : r.steps) EXPECT_LE(s.running, 4);
}

TEST(LocalAttention, SlidingWindowLayersCostLessOnLongContexts) {
  auto full = testing::tiny_config(40);
  full.workload.input_tokens = {workloads::LengthDist::kFixed, 8000};
  auto windowed = full;
  windowed.model.window.size = 512;
  windowed.model.window.full_every = 2;
  const auto a = simulate(full), b = simulate(windowed);
  EXPECT_LT(b.pools[0].phase_ns_per_step[static_cast<int>(Phase::kAttention)] * b.pools[0].steps,
            a.pools[0].phase_ns_per_step[static_cast<int>(Phase::kAttention)] * a.pools[0].steps);
}

}  // namespace
}  // namespace moesim::sim
