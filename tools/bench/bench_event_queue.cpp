// Throughput of the discrete-event engine (sim/event_queue.h), in events per second, where one
// event is one schedule plus one dispatch.
//
// BM_HoldModel: the classic "hold" model. Q events stay pending; each dispatched event schedules
// one successor at now + a pseudo-random delay, until N events have run. Args: {Q, N}.
// BM_BulkScheduleThenDrain: N events scheduled at random times, then all run. Args: {N}.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/event_queue.h"

namespace {

using moesim::sim::Duration;
using moesim::sim::EventQueue;
using moesim::sim::Time;

// xorshift64*: cheap, deterministic delays.
struct Rng {
  std::uint64_t state = 0x9E37'79B9'7F4A'7C15ull;
  std::uint64_t next() {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545'F491'4F6C'DD1Dull;
  }
  // Uniform-ish in [0, 1 ms).
  std::int64_t delay_ns() { return static_cast<std::int64_t>(next() >> 44); }
};

struct HoldModel {
  EventQueue queue;
  Rng rng;
  std::uint64_t remaining = 0;  // successors still to schedule

  static void on_event(void* ctx, std::uint64_t arg) {
    auto* self = static_cast<HoldModel*>(ctx);
    if (self->remaining == 0) return;
    --self->remaining;
    self->queue.schedule(self->queue.now() + Duration::ns(self->rng.delay_ns()), static_cast<int>(arg & 3), &on_event,
                         self, arg + 1);
  }
};

void BM_HoldModel(benchmark::State& state) {
  const auto q = static_cast<std::uint64_t>(state.range(0));
  const auto n = static_cast<std::uint64_t>(state.range(1));
  for (auto _ : state) {
    HoldModel model;
    model.remaining = n - q;
    for (std::uint64_t i = 0; i < q; ++i) {
      model.queue.schedule(Time::from_ns(model.rng.delay_ns()), 0, &HoldModel::on_event, &model, i);
    }
    model.queue.run();
    if (model.queue.dispatched() != n) state.SkipWithError("wrong event count");
    benchmark::DoNotOptimize(model.queue.now());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_HoldModel)
    ->ArgNames({"Q", "N"})
    ->Args({1 << 10, 1'000'000})
    ->Args({1 << 10, 10'000'000})
    ->Args({1 << 16, 1'000'000})
    ->Args({1 << 16, 10'000'000})
    ->Unit(benchmark::kMillisecond);

void count_event(void* ctx, std::uint64_t) { ++*static_cast<std::uint64_t*>(ctx); }

void BM_BulkScheduleThenDrain(benchmark::State& state) {
  const auto n = static_cast<std::uint64_t>(state.range(0));
  for (auto _ : state) {
    EventQueue queue;
    Rng rng;
    std::uint64_t count = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      queue.schedule(Time::from_ns(static_cast<std::int64_t>(rng.next() >> 24)), 0, &count_event, &count, i);
    }
    queue.run();
    if (count != n) state.SkipWithError("wrong event count");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_BulkScheduleThenDrain)->ArgNames({"N"})->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
