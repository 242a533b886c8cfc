// Functional-decoder decode throughput, single-threaded (Eigen never parallelises here:
// EIGEN_DONT_PARALLELIZE, no OpenMP). Each iteration is one decode step of `batch` sequences
// that hold a 128-token prompt; tokens/s counts decoded tokens. After 64 steps the sequences
// are replaced by fresh prefilled ones (outside the timing), so the KV history stays 128..192.
//
// Models: the tiny-moe preset (7 M parameters) and "moe-100m", defined here: 6 layers (the
// first dense, intermediate 2048), hidden 512, vocab 32000, untied head, GQA 8 heads / 2 KV
// heads of 64, 16 routed experts top-2 of width 512 plus one shared expert: 107 M parameters
// (33 M of them embedding + LM head); a decoded token touches about 35 M (16 M in the LM head).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "models/functional/decoder.h"
#include "models/functional/weights_random.h"
#include "models/presets.h"

namespace {

using namespace moesim::models;
using namespace moesim::models::functional;

ModelSpec moe_100m() {
  ModelSpec m;
  m.name = "moe-100m";
  m.num_layers = 6;
  m.hidden = 512;
  m.vocab = 32000;
  m.attention = AttentionKind::kGqa;
  m.heads = 8;
  m.kv_heads = 2;
  m.head_dim = 64;
  m.first_k_dense = 1;
  m.dense_intermediate = 2048;
  m.routed_experts = 16;
  m.shared_experts = 1;
  m.top_k = 2;
  m.moe_intermediate = 512;
  return m;
}

std::vector<BatchEntry> prefill(Decoder& d, int batch, int vocab) {
  std::vector<BatchEntry> prompts;
  for (int b = 0; b < batch; ++b) {
    std::vector<int> tokens;
    for (int i = 0; i < 128; ++i) tokens.push_back((i * 131 + b * 17 + 3) % vocab);
    prompts.push_back({d.add_sequence(), tokens});
  }
  d.forward(prompts);
  std::vector<BatchEntry> step;
  for (const auto& p : prompts) step.push_back({p.sequence, {1}});
  return step;
}

void run(benchmark::State& state, const ModelSpec& spec) {
  const int batch = static_cast<int>(state.range(0));
  const DecoderWeights weights = random_weights(spec);
  auto decoder = std::make_unique<Decoder>(spec, weights);
  auto step = prefill(*decoder, batch, spec.vocab);
  int steps = 0;
  for (auto _ : state) {
    if (++steps % 64 == 0) {
      state.PauseTiming();
      decoder = std::make_unique<Decoder>(spec, weights);
      step = prefill(*decoder, batch, spec.vocab);
      state.ResumeTiming();
    }
    const ForwardResult r = decoder->forward(step);
    for (std::size_t i = 0; i < step.size(); ++i) step[i].tokens[0] = static_cast<int>(i + steps) % spec.vocab;
    benchmark::DoNotOptimize(r.logits.data());
  }
  state.SetItemsProcessed(state.iterations() * batch);
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch), benchmark::Counter::kIsRate);
  state.counters["params_M"] = static_cast<double>(decoder_parameters(spec)) * 1e-6;
  state.counters["eigen_threads"] = Eigen::nbThreads();  // 1: single-threaded
}

void BM_DecodeTinyMoe(benchmark::State& state) { run(state, *find_model_preset("tiny-moe")); }
void BM_DecodeMoe100M(benchmark::State& state) { run(state, moe_100m()); }

BENCHMARK(BM_DecodeTinyMoe)->Arg(1)->Arg(8)->Arg(32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DecodeMoe100M)->Arg(1)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
