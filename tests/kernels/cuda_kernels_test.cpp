// The GPU kernels (built only with the CUDA backend). Every test skips, saying why, when no GPU
// is visible (the CUDA runtime reports none, or no driver). Each defect fixed on the GPU path
// without a GPU to run it has a test here that would fail on one.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"
#include "kernels/timing_summary.h"
#include "tests/kernels/error_of.h"

namespace moesim::kernels {
namespace {

class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpus_ = visible_cuda_devices(why);
    if (gpus_ == 0) GTEST_SKIP() << "no GPU to test on: " << why;
  }
  int gpus_ = 0;
};

TEST_F(CudaKernels, GroupedGemmsMatchTheCpuReference) {
  auto bench = make_cuda_gemm_bench(0);
  // The 17-row expert starts 5 rows in: with FP8 its operands are only 128-byte aligned, which
  // cuBLASLt's algorithm search must be told (it assumes 256).
  const std::vector<std::int64_t> m = {5, 0, 17, 64, 1};
  for (auto t : {ElementType::kBf16, ElementType::kFp16, ElementType::kFp8E4M3, ElementType::kFp32}) {
    SCOPED_TRACE(std::string(element_type_name(t)));
    EXPECT_LT(bench->verify({m, 64, 128, t, true}), 2e-2);
    EXPECT_LT(bench->verify({{48}, 96, 64, t, false}), 2e-2);
  }
}

TEST_F(CudaKernels, BackToBackShapesReadTheirOwnPointerArrays) {
  // Each grouped shape uploads new per-group pointers; the upload must land before the GEMM on
  // the GEMM's stream reads them, or a shape computes with the previous shape's pointers.
  auto bench = make_cuda_gemm_bench(0);
  const std::vector<std::vector<std::int64_t>> shapes = {{64, 64}, {1, 0, 0, 200}, {7, 9, 11, 13, 15, 17}, {300}};
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& m : shapes) {
      EXPECT_LT(bench->verify({m, 256, 128, ElementType::kBf16, true}), 2e-2) << m.size() << " groups";
      EXPECT_LT(bench->verify({m, 256, 128, ElementType::kFp8E4M3, true}), 2e-2) << m.size() << " groups";
    }
}

TEST_F(CudaKernels, RefusesLayoutsThatBreakTheAlignmentRules) {
  auto bench = make_cuda_gemm_bench(0);
  EXPECT_EQ(error_of([&] {
              bench->run({{3, 2}, 64, 100, ElementType::kBf16, true}, {0, 1, false});
            }),
            "gemm: bf16 group 1's activations start at byte 600 of the packed buffer, not 16-byte aligned (cuBLAS's "
            "tensor-core kernels need 16-byte aligned operands: k and n times the element size must be multiples of "
            "16 bytes)");
}

TEST_F(CudaKernels, TimesEveryRepetitionBehindTheGateAndDescribesTheDevice) {
  auto bench = make_cuda_gemm_bench(0);
  for (auto t : {ElementType::kBf16, ElementType::kFp8E4M3}) {
    SCOPED_TRACE(std::string(element_type_name(t)));
    const RunResult r = bench->run({{256, 128, 0, 64}, 1024, 1024, t, true}, {2, 7, true});
    ASSERT_EQ(r.time.size(), 7u);
    for (double v : r.time) EXPECT_GT(v, 0);
    EXPECT_EQ(r.exposed_launches, 0);  // every start event waited for the whole enqueue
  }
  const DeviceInfo info = bench->device_info();
  EXPECT_GT(std::stoi(info.get("sm_count")), 0);
  EXPECT_NE(info.get("cublas"), "n/a");
  EXPECT_NE(info.get("device"), "n/a");
  const std::string fp8 = bench->kernel(ElementType::kFp8E4M3, true);
  EXPECT_NE(fp8.find("one CUDA graph"), std::string::npos) << fp8;
  if (info.get("compute_capability") == "9.0") {  // Hopper with cuBLAS >= 12.9: DeepGEMM's scaling
    EXPECT_NE(fp8.find("1x128 activation and 128x128 weight FP32 block scales"), std::string::npos) << fp8;
  }
}

TEST_F(CudaKernels, NcclAllToAllOnTheLocalGpus) {
  if (gpus_ < 2) GTEST_SKIP() << "an all-to-all needs 2 GPUs, " << gpus_ << " visible";
  auto bench = make_nccl_all_to_all_bench(0);
  const int r = bench->ranks();
  // The device info names the launcher once (a capture copies it into its metadata).
  std::set<std::string> keys;
  for (const auto& [k, v] : bench->device_info().fields) EXPECT_TRUE(keys.insert(k).second) << "key twice: " << k;
  EXPECT_EQ(bench->device_info().get("launcher"), "single process (ncclCommInitAll)");
  AllToAllPattern uniform{r, std::vector<std::int64_t>(static_cast<std::size_t>(r * r), 1 << 20)};
  AllToAllPattern skewed{r, std::vector<std::int64_t>(static_cast<std::size_t>(r * r), 0)};
  for (int s = 0; s < r; ++s)
    for (int d = 0; d < r; ++d)
      skewed.bytes[static_cast<std::size_t>(s * r + d)] = s == d ? 0 : (d == 0 ? 4 << 20 : 1 << 18);
  for (const auto& p : {uniform, skewed}) {
    const RunResult t = bench->run(p, {1, 5, false});
    ASSERT_EQ(t.time.size(), 5u);
    ASSERT_EQ(t.per_rank.size(), static_cast<std::size_t>(r));
    EXPECT_EQ(t.exposed_launches, 0);
    for (std::size_t i = 0; i < 5; ++i) {
      double slowest = 0;
      for (const auto& rank : t.per_rank) slowest = std::max(slowest, rank[i]);
      EXPECT_GT(t.time[i], 0);
      EXPECT_EQ(t.time[i], slowest);
    }
  }
  // Small messages are latency, not launch time: the gate keeps the host's group launch over
  // every GPU out of the timing, so 4 KiB per peer stays far below a millisecond.
  const RunResult small =
      bench->run({r, std::vector<std::int64_t>(static_cast<std::size_t>(r * r), 4096)}, {3, 9, false});
  EXPECT_LT(summarize(small.time).median_ns, 1e6);
}

}  // namespace
}  // namespace moesim::kernels
