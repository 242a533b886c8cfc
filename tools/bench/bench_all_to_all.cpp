// Cost of one all-to-all evaluation for EP256 (256 ranks on 32 HGX nodes, a 256 x 256 matrix),
// at the two fidelities (issue 4 targets: analytic <= 50 us, flow <= 20 ms).
//
// Traffic: DeepSeek-V3 dispatch of 128 tokens per rank (256 experts, top-8, 8 groups pick 4),
// the expected matrix times a deterministic +-50 % perturbation per entry ("skewed"), or the
// plain expectation ("uniform"). The route cache is warmed before timing (it lives as long as
// the Cluster, as in a simulation).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "topology/all_to_all.h"
#include "topology/moe_traffic.h"

namespace {

using namespace moesim::topology;

struct Setup {
  Cluster cluster;
  std::vector<int> devices;
  AllToAllTraffic traffic;
};

Setup make_setup(bool skewed) {
  ClusterConfig cfg = cluster_preset_defaults("hgx");
  cfg.nodes = 32;
  Setup s{Cluster(cfg), std::vector<int>(256), {}};
  std::iota(s.devices.begin(), s.devices.end(), 0);
  s.traffic = expected_moe_traffic(s.cluster, s.devices, {128, 256, 8, 8, 4});
  if (skewed) {
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int a = 0; a < 256; ++a)
      for (int b = 0; b < 256; ++b) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        const double u = static_cast<double>((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
        s.traffic.pair_bytes.at(a, b) *= 0.5 + u;
        s.traffic.expert_bytes.at(a, b) *= 0.5 + u;
      }
  }
  return s;
}

void BM_AllToAll(benchmark::State& state, const char* algorithm, const char* fidelity, bool skewed) {
  const Setup s = make_setup(skewed);
  AllToAllOptions o;
  o.algorithm = &find_all_to_all(algorithm);
  o.fidelity = &find_fidelity(fidelity);
  o.scale = 7456;                                                            // FP8 dispatch bytes per token
  benchmark::DoNotOptimize(all_to_all(s.cluster, s.devices, s.traffic, o));  // warm the routes
  for (auto _ : state) benchmark::DoNotOptimize(all_to_all(s.cluster, s.devices, s.traffic, o).duration_ns);
}

BENCHMARK_CAPTURE(BM_AllToAll, analytic_direct_ep256, "direct", "analytic", true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_AllToAll, analytic_hierarchical_ep256, "hierarchical", "analytic", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_AllToAll, analytic_low_latency_ep256, "low-latency", "analytic", true)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_AllToAll, flow_direct_uniform_ep256, "direct", "flow", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllToAll, flow_direct_skewed_ep256, "direct", "flow", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AllToAll, flow_hierarchical_skewed_ep256, "hierarchical", "flow", true)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
