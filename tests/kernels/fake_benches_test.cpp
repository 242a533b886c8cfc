// The fake backend (kernels/fake_benches.h): deterministic analytic timings, a CUDA-shaped
// device info that says it measured nothing, scripted throttling, the same refusals as the CUDA
// backend, and the same answers when loaded as a plugin through the CUDA entry points.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "kernels/fake_benches.h"
#include "tests/kernels/error_of.h"

namespace moesim::kernels {
namespace {

// No key twice, the CUDA backend's keys present.
void expect_cuda_shaped(const DeviceInfo& info) {
  std::set<std::string> keys;
  for (const auto& [k, v] : info.fields) EXPECT_TRUE(keys.insert(k).second) << "key twice: " << k;
  for (const char* key : {"device", "compute_capability", "sm_count", "sm_clock_mhz", "memory_bytes", "l2_bytes",
                          "driver", "cuda_runtime", "cublas", "cublaslt", "nccl", "dry_run"})
    EXPECT_TRUE(keys.count(key)) << key;
  EXPECT_NE(info.get("device").find("nothing measured"), std::string::npos);
}

TEST(FakeGemmBench, AnalyticTimingsOfAMadeUpH200) {
  auto bench = make_fake_gemm_bench({});
  EXPECT_EQ(bench->backend(), "fake");
  expect_cuda_shaped(bench->device_info());
  // 8 experts of 16 rows at DeepSeek-V3's up/gate shape stream their FP8 weights:
  // 8 · 4096 · 7168 bytes (+ activations and outputs) at 85 % of 4.8 TB/s, plus 6 + 8 · 1.5 us.
  const GemmShape s{std::vector<std::int64_t>(8, 16), 4096, 7168, ElementType::kFp8E4M3, true};
  const RunResult r = bench->run(s, {3, 5, true});
  ASSERT_EQ(r.time.size(), 5u);
  const double bytes = 8.0 * 4096 * 7168 + 128.0 * 7168 + 128.0 * 4096 * 2;
  const double expected = bytes / (0.85 * 4.8e12) * 1e9 + 6000 + 8 * 1500;
  EXPECT_NEAR(r.time[2], expected, 1e-6 * expected);          // factor 1 at repetition 2
  EXPECT_NEAR(r.time[0], expected * 0.994, 1e-6 * expected);  // 1 + 0.003 · (0 − 2)
  EXPECT_EQ(bench->run(s, {0, 5, false}).time, r.time);       // deterministic
  EXPECT_TRUE(r.state.known);
  EXPECT_EQ(r.state.reasons, kClocksSwPowerCap);
  EXPECT_FALSE(throttled(r.state.reasons));
  EXPECT_EQ(r.exposed_launches, 0);
  EXPECT_NE(bench->kernel(ElementType::kFp8E4M3, true).find("no kernel ran"), std::string::npos);
}

TEST(FakeGemmBench, RefusesWhatTheCudaBackendRefusesAndVerifiesNothing) {
  auto bench = make_fake_gemm_bench({});
  EXPECT_EQ(error_of([&] {
              bench->run({{4}, 64, 120, ElementType::kFp8E4M3, false}, {});
            }),
            "fp8 gemm: cuBLASLt FP8 needs n and k multiples of 16, got n=64 k=120");
  EXPECT_EQ(error_of([&] {
              bench->run({{4, 4}, 64, 64, ElementType::kBf16, false}, {});
            }),
            "gemm: a dense GEMM has one group");
  EXPECT_EQ(error_of([&] {
              bench->verify({{4}, 64, 64, ElementType::kBf16, false});
            }),
            "the fake backend runs no kernel: there is no result to verify");
}

TEST(FakeGemmBench, ScriptedThrottling) {
  auto bench = make_fake_gemm_bench({8, kClocksHwThermalSlowdown | kClocksSwPowerCap, 2});
  const GemmShape s{{64}, 256, 256, ElementType::kBf16, false};
  const RunResult first = bench->run(s, {0, 1, false}), second = bench->run(s, {0, 1, false});
  EXPECT_FALSE(throttled(first.state.reasons));
  EXPECT_TRUE(throttled(second.state.reasons));
  EXPECT_EQ(second.state.sm_clock_mhz, 1500);
}

TEST(FakeAllToAllBench, PerRankTimesAndTheSlowest) {
  auto bench = make_fake_all_to_all_bench({}, 0);
  EXPECT_EQ(bench->ranks(), 8);
  const DeviceInfo info = bench->device_info();
  expect_cuda_shaped(info);
  EXPECT_EQ(info.get("launcher"), "single process (fake)");
  EXPECT_EQ(info.get("ranks"), "8");
  EXPECT_EQ(info.get("nodes"), "1");
  const AllToAllPattern p{8, std::vector<std::int64_t>(64, 1 << 20)};
  const RunResult r = bench->run(p, {1, 3, false});
  ASSERT_EQ(r.per_rank.size(), 8u);
  for (std::size_t i = 0; i < 3; ++i) {
    double slowest = 0;
    for (const auto& rank : r.per_rank) slowest = std::max(slowest, rank[i]);
    EXPECT_EQ(r.time[i], slowest);
  }
  // Rank 0: 12 us + 7 MiB at 80 % of 450 GB/s; the last rank is 1.75 % slower.
  const double rank0 = 12000 + 7.0 * (1 << 20) / (0.8 * 450e9) * 1e9;
  EXPECT_NEAR(fake_all_to_all_rank_ns(p, 0), rank0, 1e-6 * rank0);
  EXPECT_NEAR(fake_all_to_all_rank_ns(p, 7), rank0 * 1.0175, 1e-6 * rank0);
  EXPECT_EQ(error_of([] { make_fake_all_to_all_bench({}, -1); }), "all-to-all: gpus must be >= 0 (0: all visible)");
  EXPECT_EQ(error_of([&] { bench->run({2, {0, 1, 1, 0}}, {}); }), "all-to-all: pattern for 2 ranks on a bench of 8");
}

TEST(FakePlugin, LoadsThroughTheCudaEntryPointsAndAnswersAlike) {
  auto plugin = make_fake_plugin_gemm_bench(0);
  auto local = make_fake_gemm_bench({});
  const GemmShape s{{5, 0, 17, 64, 1}, 2048, 768, ElementType::kBf16, true};
  EXPECT_EQ(plugin->run(s, {1, 4, true}).time, local->run(s, {1, 4, true}).time);
  EXPECT_EQ(plugin->device_info().fields, local->device_info().fields);
  EXPECT_EQ(error_of([] { make_fake_plugin_gemm_bench(8); }), "fake device 8 out of range (8 fake GPUs)");
  auto a2a = make_fake_plugin_all_to_all_bench(4);
  EXPECT_EQ(a2a->ranks(), 4);
  EXPECT_EQ(error_of([] { make_fake_plugin_all_to_all_bench(9); }), "all-to-all: 9 GPUs asked for, 8 fake GPUs");
  // No MPI job was started here: ending one is a no-op.
  abort_parallel_job(2);
}

}  // namespace
}  // namespace moesim::kernels
