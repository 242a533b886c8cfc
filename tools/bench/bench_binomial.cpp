// Binomial(n, p) variates, the routing sampler's unit of work (workloads/binomial.h): one step of
// DeepSeek-V3 on EP144 draws ~40,000 of them, three quarters with n < 100 and a mean under 12
// (inversion), the rest by BTRS. Arguments: n and the mean n·p in hundredths; n is jittered by
// ±12 % from call to call (as the counts of successive layers are), so neither the branch
// predictor nor a repeated-parameter table sees one fixed law.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "workloads/binomial.h"
#include "workloads/rng.h"

namespace {

using namespace moesim::workloads;

void BM_Binomial(benchmark::State& state) {
  const auto n0 = state.range(0);
  const double p = static_cast<double>(state.range(1)) / 100.0 / static_cast<double>(n0);
  FastBits jitter{42};
  std::vector<std::int64_t> ns(4096);
  for (auto& n : ns)
    n = n0 + static_cast<std::int64_t>((jitter() % 1000) * static_cast<std::uint64_t>(n0) / 4000) - n0 / 8;
  FastBits bits{7};
  std::size_t i = 0;
  std::int64_t sum = 0;
  for (auto _ : state) {
    sum += sample_binomial(ns[i++ & 4095], p, bits);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations());
}

// A split of n over m equal categories by conditional binomials (a node's ranks, m = 8).
void BM_ConditionalSplit(benchmark::State& state) {
  const auto n0 = state.range(0);
  std::vector<double> cond(8), probs(8, 1.0);
  multinomial_conditionals(probs, cond);
  std::vector<std::int64_t> out(8);
  FastBits bits{7};
  std::int64_t k = 0;
  for (auto _ : state) {
    sample_conditional(n0 + (k++ & 15), cond, bits, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 7);
}

}  // namespace

// Inversion (means 0.3, 3, 10) and BTRS (means 28, 120, 480) at the sampler's typical sizes.
BENCHMARK(BM_Binomial)
    ->Args({8, 30})
    ->Args({40, 300})
    ->Args({80, 1000})
    ->Args({512, 2800})
    ->Args({1000, 12000})
    ->Args({3900, 48000});
BENCHMARK(BM_ConditionalSplit)->Arg(24)->Arg(200)->Arg(3900);

BENCHMARK_MAIN();
