// One decode step of the speed-target deployments (tools/bench/scenarios/), the unit the
// simulator repeats ~2,500 times at EP144 and ~21,500 times over the NVL72 instances: every
// layer's routing draw, all-to-all and grouped GEMMs, and the step's timeline, on the decode pool
// of the scenario with `tokens` decode requests on every rank (KV 1,000 to 2,000). A step at EP144
// must take <= 4 ms for the 10 s target (~2,460 steps), an NVL72 instance's <= 2.8 ms for 60 s.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "scenarios/loader.h"
#include "sim/deployment.h"
#include "sim/step_model.h"
#include "workloads/routing_model.h"

namespace {

using namespace moesim;

void run(benchmark::State& state, const char* file) {
  const auto s = scenarios::load_scenario_file(std::string(MOESIM_SOURCE_DIR) + "/tools/bench/scenarios/" + file);
  const auto c = scenarios::simulation_config(s);
  const topology::Cluster cluster(c.cluster);
  const sim::Deployment deployment(c.deployment, c.model, c.hardware, cluster);
  const auto& pool = deployment.pools().back();  // decode
  const sim::InstanceLayout layout(pool, 0);
  const auto cost = calibration::make_cost_model(c.cost_model, c.hardware);
  const auto routing = workloads::make_routing_model(c.routing, workloads::routing_shape(c.model), 1);
  sim::StepModel step(c.model, layout, cluster, *cost, *routing, pool.config.overlap);
  std::vector<sim::RankBatch> batches(static_cast<std::size_t>(layout.ranks()));
  const auto tokens = static_cast<std::size_t>(state.range(0));
  for (std::size_t r = 0; r < batches.size(); ++r) {
    auto& b = batches[r];
    for (std::size_t i = 0; i < tokens; ++i)
      b.decode_kv_lengths.push_back(1000 + static_cast<std::int64_t>((r * 37 + i * 101) % 1000));
    b.sampled_tokens = static_cast<std::int64_t>(tokens);
  }
  workloads::Rng rng(7);
  sim::LayerBreakdown lb;
  std::int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(step.run(batches, i++, rng, lb));
  state.counters["ranks"] = layout.ranks();
}

void BM_DecodeStepEp144(benchmark::State& s) { run(s, "dsv3-decode-ep144-20k.yaml"); }
void BM_DecodeStepNvl72(benchmark::State& s) { run(s, "dsv3-nvl72-1024gpu.yaml"); }

}  // namespace

// Tokens per rank: the EP144 run's mean batch is ~56 per rank; an NVL72 instance's ~14.
BENCHMARK(BM_DecodeStepEp144)->Arg(8)->Arg(56)->Arg(128)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeStepNvl72)->Arg(4)->Arg(14)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
