// The CPU reference kernels: the grouped GEMM computes the right products, the all-to-all moves
// every chunk to the right place, both return one timing per repetition, and bad input gets one
// clear KernelError.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"
#include "kernels/timing_summary.h"
#include "tests/kernels/error_of.h"

namespace moesim::kernels {
namespace {

TEST(CpuGroupedGemm, EachGroupUsesItsOwnWeight) {
  // Group 0: one row [1 2] times W0 = [[1 0] [0 1]] (identity) -> [1 2].
  // Group 1: empty. Group 2: rows [1 1], [2 0] times W2 = [[1 2] [3 4]] -> [4 6], [2 4].
  const std::vector<std::int64_t> m = {1, 0, 2};
  const std::vector<float> x = {1, 2, 1, 1, 2, 0};
  const std::vector<float> w = {1, 0, 0, 1, /* group 1, unused */ 9, 9, 9, 9, 1, 2, 3, 4};
  std::vector<float> y(6, -1);
  cpu_grouped_gemm(m, 2, 2, x.data(), w.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{1, 2, 4, 6, 2, 4}));
}

TEST(CpuGemmBench, MatchesANaiveLoop) {
  auto bench = make_cpu_gemm_bench();
  EXPECT_EQ(bench->backend(), "cpu");
  EXPECT_LT(bench->verify({{3, 0, 5, 17}, 24, 40, ElementType::kFp32, true}), 1e-5);
  EXPECT_LT(bench->verify({{33}, 40, 24, ElementType::kFp32, false}), 1e-5);
}

TEST(CpuGemmBench, OneTimingPerRepetitionOnEitherClock) {
  auto bench = make_cpu_gemm_bench();
  for (auto clock : {CpuClock::kWall, CpuClock::kThreadCpu}) {
    const RunResult r = bench->run({{8, 8}, 64, 64, ElementType::kFp32, true}, {1, 5, false, clock});
    ASSERT_EQ(r.time.size(), 5u);
    for (double v : r.time) EXPECT_GT(v, 0);
    EXPECT_TRUE(r.per_rank.empty());
    EXPECT_FALSE(r.state.known);  // a CPU reports no clocks-event reasons
    EXPECT_EQ(r.exposed_launches, 0);
  }
}

TEST(CpuGemmBench, ReportsEigenRegisterBlocks) {
  const DeviceInfo info = make_cpu_gemm_bench()->device_info();
  EXPECT_EQ(info.get("sm_count"), "1");
  EXPECT_EQ(info.get("cuda_runtime"), "n/a");
  EXPECT_NE(info.get("gemm_block_m"), "n/a");
  EXPECT_NE(info.get("device"), "n/a");
  EXPECT_EQ(info.get("no_such_key"), "n/a");
}

TEST(CpuGemmBench, RefusesWhatItCannotRun) {
  auto bench = make_cpu_gemm_bench();
  EXPECT_EQ(error_of([&] {
              bench->run({{4}, 8, 8, ElementType::kBf16, false}, {});
            }),
            "the cpu backend runs fp32 GEMMs only, not bf16");
  EXPECT_EQ(error_of([&] {
              bench->run({{4, -1}, 8, 8, ElementType::kFp32, true}, {});
            }),
            "gemm: negative rows in a group");
  EXPECT_EQ(error_of([&] {
              bench->run({{4, 4}, 8, 8, ElementType::kFp32, false}, {});
            }),
            "gemm: a dense GEMM has one group");
  EXPECT_EQ(error_of([&] {
              bench->run({{4}, 0, 8, ElementType::kFp32, false}, {});
            }),
            "gemm: n and k must be positive");
}

TEST(CpuAllToAll, EveryChunkLandsAtItsReceiverInSourceOrder) {
  // 3 ranks; rank s sends (s + 1) * (d + 1) bytes of value 16 s + d to rank d.
  AllToAllPattern p{3, {}};
  for (int s = 0; s < 3; ++s)
    for (int d = 0; d < 3; ++d) p.bytes.push_back((s + 1) * (d + 1));
  std::vector<std::vector<char>> send(3);
  std::vector<const char*> ptr;
  for (int s = 0; s < 3; ++s) {
    for (int d = 0; d < 3; ++d)
      send[s].insert(send[s].end(), static_cast<std::size_t>((s + 1) * (d + 1)), static_cast<char>(16 * s + d));
    ptr.push_back(send[s].data());
  }
  for (int r = 0; r < 3; ++r) {
    std::vector<char> recv(static_cast<std::size_t>(6 * (r + 1)), 0);  // (1 + 2 + 3) * (r + 1)
    cpu_all_to_all_receive(p, r, ptr, recv.data());
    std::size_t at = 0;
    for (int s = 0; s < 3; ++s)
      for (int i = 0; i < (s + 1) * (r + 1); ++i, ++at)
        EXPECT_EQ(recv[at], s == r ? 0 : static_cast<char>(16 * s + r))
            << "rank " << r << " from " << s;  // own chunk stays put
    EXPECT_EQ(at, recv.size());
  }
}

TEST(CpuAllToAllBench, TimesEveryRepetition) {
  auto bench = make_cpu_all_to_all_bench(3);
  EXPECT_EQ(bench->ranks(), 3);
  EXPECT_TRUE(bench->is_root());
  const AllToAllPattern p{3, std::vector<std::int64_t>(9, 4096)};
  EXPECT_TRUE(p.uniform());
  for (auto clock : {CpuClock::kWall, CpuClock::kThreadCpu}) {
    const RunResult r = bench->run(p, {1, 4, false, clock});
    ASSERT_EQ(r.time.size(), 4u);
    ASSERT_EQ(r.per_rank.size(), 3u);
    for (std::size_t i = 0; i < r.time.size(); ++i) {
      EXPECT_GT(r.time[i], 0);
      // A repetition lasts at least as long as each of its ranks (wall: first start to last end;
      // CPU time: the busiest rank's).
      for (const Timings& rank : r.per_rank) {
        ASSERT_EQ(rank.size(), 4u);
        EXPECT_LE(rank[i], r.time[i]);
      }
    }
  }
  const DeviceInfo info = bench->device_info();
  EXPECT_EQ(info.get("sm_count"), "3");
  EXPECT_EQ(info.get("ranks"), "3");
  EXPECT_EQ(info.get("nodes"), "1");
  EXPECT_EQ(info.get("launcher"), "threads");
}

TEST(CpuAllToAllBench, RefusesAPatternOfAnotherSize) {
  auto bench = make_cpu_all_to_all_bench(2);
  EXPECT_EQ(error_of([&] {
              bench->run({3, std::vector<std::int64_t>(9, 1)}, {});
            }),
            "all-to-all: pattern for 3 ranks on a bench of 2");
  EXPECT_EQ(error_of([&] { bench->run({2, {0, 1, -1, 0}}, {}); }), "all-to-all: negative byte count");
  EXPECT_EQ(error_of([] { make_cpu_all_to_all_bench(0); }), "all-to-all: ranks must be >= 1, got 0");
}

TEST(TimingSummary, MedianAndSpreadInterpolateLinearly) {
  Timings t(10);
  std::iota(t.begin(), t.end(), 1.0);  // 1..10, shuffled below
  std::swap(t[0], t[9]);
  const TimingSummary s = summarize(t);
  EXPECT_EQ(s.count, 10);
  EXPECT_DOUBLE_EQ(s.median_ns, 5.5);
  EXPECT_DOUBLE_EQ(s.p10_ns, 1.9);  // 1 + 0.9 × (2 - 1)
  EXPECT_DOUBLE_EQ(s.p90_ns, 9.1);
  EXPECT_DOUBLE_EQ(s.min_ns, 1);
  EXPECT_DOUBLE_EQ(s.max_ns, 10);
  EXPECT_DOUBLE_EQ(summarize({7}).median_ns, 7);
  EXPECT_EQ(error_of([] { summarize({}); }), "no timings to summarise (repetitions must be >= 1)");
}

TEST(Backends, CudaFactoriesExplainWhyTheyCannotRun) {
  std::string why;
  if (visible_cuda_devices(why) > 0) GTEST_SKIP() << "a GPU is visible: covered by kernels_cuda_tests";
  EXPECT_FALSE(why.empty());
  const std::string gemm = error_of([] { make_cuda_gemm_bench(0); });
  if (cuda_backend_built())
    EXPECT_EQ(gemm.rfind("no CUDA device visible (cudaGetDeviceCount", 0), 0u) << gemm;
  else
    EXPECT_EQ(gemm,
              "this moesim was built without the CUDA backend (no CUDA toolkit at configure time, or MOESIM_CUDA=OFF)");
  EXPECT_EQ(gemm.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace moesim::kernels
