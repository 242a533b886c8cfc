// Routing-count sampling for one forward step of DeepSeek-V3 on EP144 (DESIGN.md §4 granularity):
// 256 routed experts + 32 redundant slots (EPLB) over 144 source/destination ranks, 58 MoE
// layers, top-8, `tokens` decode tokens per rank. Target: one step in <= 2 ms.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/placement.h"
#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"

namespace {

using namespace moesim;

void run(benchmark::State& state, const char* model_name, const char* split) {
  const int experts = 256, ep = 144, redundant = 32, layers = 58, top_k = 8;
  const auto tokens_per_rank = static_cast<std::int64_t>(state.range(0));
  workloads::RoutingConfig rc;
  rc.model = model_name;
  rc.s = 1.0;
  const workloads::RoutingShape rs{experts, layers, top_k, 8, 4};
  const auto model = workloads::make_routing_model(rc, rs, 1);
  sim::PlacementConfig pc;
  pc.policy = "eplb";
  pc.redundant = redundant;
  sim::PlacementShape ps;
  ps.experts = experts;
  ps.ep = ep;
  ps.redundant = redundant;
  std::vector<workloads::RoutingTargets> targets;
  std::vector<double> probs(experts);
  for (int l = 0; l < layers; ++l) {
    model->expert_distribution(l, 0, probs);
    targets.push_back(sim::place_layer(pc, ps, probs).routing_targets(split));
  }
  workloads::RoutingSampler sampler(*model, experts, top_k);
  workloads::Rng rng = workloads::make_stream(1, "bench");
  const std::vector<std::int64_t> tokens(ep, tokens_per_rank);
  workloads::LayerCounts counts;
  std::int64_t step = 0;
  for (auto _ : state) {
    for (int l = 0; l < layers; ++l) sampler.draw(l, step, tokens, targets[static_cast<std::size_t>(l)], rng, counts);
    benchmark::DoNotOptimize(counts.pairs.data());
    ++step;
  }
  state.counters["pairs_per_step"] = static_cast<double>(tokens_per_rank * ep * top_k * layers);
}

void BM_RoutingStepZipf(benchmark::State& s) { run(s, "zipf", "even"); }
void BM_RoutingStepUniform(benchmark::State& s) { run(s, "uniform", "even"); }
void BM_RoutingStepZipfLocalSplit(benchmark::State& s) { run(s, "zipf", "local"); }
void BM_RoutingStepGroupLimited(benchmark::State& s) { run(s, "group-limited", "even"); }

BENCHMARK(BM_RoutingStepZipf)->Arg(16)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepUniform)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepZipfLocalSplit)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepGroupLimited)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
