// The GPU kernels (built only with the CUDA backend). Every test skips, saying why, when no GPU
// is visible (the CUDA runtime reports none, or no driver).
#include <gtest/gtest.h>

#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"
#include "kernels/timing_summary.h"

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
  const std::vector<std::int64_t> m = {5, 0, 17, 64, 1};
  for (auto t : {ElementType::kBf16, ElementType::kFp16, ElementType::kFp8E4M3, ElementType::kFp32}) {
    SCOPED_TRACE(std::string(element_type_name(t)));
    EXPECT_LT(bench->verify({m, 64, 128, t, true}), 2e-2);
    EXPECT_LT(bench->verify({{48}, 96, 64, t, false}), 2e-2);
  }
}

TEST_F(CudaKernels, TimesEveryRepetitionAndDescribesTheDevice) {
  auto bench = make_cuda_gemm_bench(0);
  const Timings t = bench->run({{256, 128, 0, 64}, 1024, 1024, ElementType::kBf16, true}, {2, 7, true});
  ASSERT_EQ(t.size(), 7u);
  for (double v : t) EXPECT_GT(v, 0);
  const DeviceInfo info = bench->device_info();
  EXPECT_GT(std::stoi(info.get("sm_count")), 0);
  EXPECT_NE(info.get("cublas"), "n/a");
  EXPECT_NE(info.get("device"), "n/a");
}

TEST_F(CudaKernels, NcclAllToAllOnTheLocalGpus) {
  if (gpus_ < 2) GTEST_SKIP() << "an all-to-all needs 2 GPUs, " << gpus_ << " visible";
  auto bench = make_nccl_all_to_all_bench(0);
  const int r = bench->ranks();
  AllToAllPattern uniform{r, std::vector<std::int64_t>(static_cast<std::size_t>(r * r), 1 << 20)};
  AllToAllPattern skewed{r, std::vector<std::int64_t>(static_cast<std::size_t>(r * r), 0)};
  for (int s = 0; s < r; ++s)
    for (int d = 0; d < r; ++d) skewed.bytes[static_cast<std::size_t>(s * r + d)] = s == d ? 0 : (d == 0 ? 4 << 20 : 1 << 18);
  for (const auto& p : {uniform, skewed}) {
    const Timings t = bench->run(p, {1, 5, false});
    ASSERT_EQ(t.size(), 5u);
    for (double v : t) EXPECT_GT(v, 0);
  }
}

}  // namespace
}  // namespace moesim::kernels
