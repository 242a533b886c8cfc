// Routing-count sampling for one forward step of DeepSeek-V3 on EP144 (docs/design.md §4 granularity):
// 256 routed experts + 32 redundant slots (EPLB) over 144 source/destination ranks, 58 MoE
// layers, top-8, `tokens` decode tokens per rank, on 18 nodes of 8. Target: one step in <= 2 ms.
#include <benchmark/benchmark.h>

#include <vector>

#include "sim/placement.h"
#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"

namespace {

using namespace moesim;

void run(benchmark::State& state, const char* model_name, const char* split, bool margins = false) {
  const int experts = 256, ep = 144, redundant = 32, layers = 58, top_k = 8;
  const auto tokens_per_rank = static_cast<std::int64_t>(state.range(0));
  workloads::RoutingConfig rc;
  rc.model = workloads::routing_model_kind(model_name);
  rc.s = 1.0;
  const workloads::RoutingShape rs{experts, layers, top_k, 8, 4};
  const auto model = workloads::make_routing_model(rc, rs, 1);
  sim::PlacementConfig pc;
  pc.policy = sim::PlacementPolicy::kEplb;
  pc.redundant = redundant;
  sim::PlacementShape ps;
  ps.experts = experts;
  ps.ep = ep;
  ps.redundant = redundant;
  std::vector<workloads::RoutingTargets> targets;
  std::vector<double> probs(experts);
  for (int l = 0; l < layers; ++l) {
    model->expert_distribution(l, 0, probs);
    targets.push_back(sim::place_layer(pc, ps, probs).routing_targets(sim::replica_split(split)));
    for (int r = 0; r < ep; ++r) targets.back().rank_node.push_back(r / 8);  // 18 HGX nodes
  }
  workloads::RoutingSampler sampler(*model, experts, top_k);
  workloads::Rng rng = workloads::make_stream(1, "bench");
  const std::vector<std::int64_t> tokens(ep, tokens_per_rank);
  workloads::LayerCounts counts;
  workloads::RoutingMargins m;
  std::int64_t step = 0;
  for (auto _ : state) {
    for (int l = 0; l < layers; ++l) {
      if (margins) {
        sampler.draw_margins(l, step, tokens, targets[static_cast<std::size_t>(l)], rng, m);
        benchmark::DoNotOptimize(m.slot_counts.data());
      } else {
        sampler.draw(l, step, tokens, targets[static_cast<std::size_t>(l)], rng, counts);
        benchmark::DoNotOptimize(counts.pairs.data());
      }
    }
    ++step;
  }
  state.counters["pairs_per_step"] = static_cast<double>(tokens_per_rank * ep * top_k * layers);
}

// Margins (what the simulator draws for the analytic fidelity on a preset fabric).
void BM_RoutingMarginsZipf(benchmark::State& s) { run(s, "zipf", "even", true); }
void BM_RoutingMarginsUniform(benchmark::State& s) { run(s, "uniform", "even", true); }
void BM_RoutingMarginsZipfLocalSplit(benchmark::State& s) { run(s, "zipf", "local", true); }
void BM_RoutingMarginsGroupLimited(benchmark::State& s) { run(s, "group-limited", "even", true); }
// The full source x destination matrix (flow fidelity, custom fabrics).
void BM_RoutingStepZipf(benchmark::State& s) { run(s, "zipf", "even"); }
void BM_RoutingStepUniform(benchmark::State& s) { run(s, "uniform", "even"); }
void BM_RoutingStepZipfLocalSplit(benchmark::State& s) { run(s, "zipf", "local"); }
void BM_RoutingStepGroupLimited(benchmark::State& s) { run(s, "group-limited", "even"); }

BENCHMARK(BM_RoutingMarginsZipf)->Arg(16)->Arg(64)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingMarginsUniform)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingMarginsZipfLocalSplit)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingMarginsGroupLimited)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepZipf)->Arg(16)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepUniform)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepZipfLocalSplit)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoutingStepGroupLimited)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
