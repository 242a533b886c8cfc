// The GPU backends' rules that need no GPU to check: the packed grouped-GEMM layout and its
// alignment rules (kernels/gemm_layout.h), the MPI launcher's GPU binding (kernels/local_gpu.h),
// and the clocks-event reasons and their NVML reader (kernels/device_state.h,
// kernels/nvml_monitor.h).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "kernels/device_state.h"
#include "kernels/gemm_layout.h"
#include "kernels/local_gpu.h"
#include "kernels/nvml_monitor.h"
#include "tests/kernels/error_of.h"

namespace moesim::kernels {
namespace {

TEST(GemmLayout, PointerAlignmentIsTheLargestPowerOfTwoUpTo256) {
  EXPECT_EQ(pointer_alignment(0), 256);
  EXPECT_EQ(pointer_alignment(256), 256);
  EXPECT_EQ(pointer_alignment(4096), 256);
  EXPECT_EQ(pointer_alignment(640), 128);
  EXPECT_EQ(pointer_alignment(200), 8);
  EXPECT_EQ(pointer_alignment(1), 1);
  EXPECT_EQ(pointer_alignment(48, 16), 16);
}

TEST(GemmLayout, TheSeventeenRowExpertIsOnly128ByteAligned) {
  // The CUDA test's FP8 shape: experts of 5, 0, 17, 64 and 1 rows, K = 128 (one byte each).
  const GemmShape s{{5, 0, 17, 64, 1}, 64, 128, ElementType::kFp8E4M3, true};
  const auto o = packed_group_offsets(s);
  ASSERT_EQ(o.size(), 4u);  // the empty expert has no pointers
  EXPECT_EQ(o[1].group, 2u);
  EXPECT_EQ(o[1].rows, 17);
  EXPECT_EQ(o[1].x, 5 * 128);       // after the first expert's 5 rows
  EXPECT_EQ(o[1].w, 2 * 64 * 128);  // the third weight, empty expert's included
  EXPECT_EQ(o[1].y, 5 * 64 * 2);    // BF16 outputs
  EXPECT_EQ(o[2].x, (5 + 17) * 128);
  // cuBLASLt's heuristic assumes 256 bytes unless told: this expert's activations have 128, its
  // outputs 128, the next one's activations 256.
  EXPECT_EQ(pointer_alignment(static_cast<std::uint64_t>(o[1].x)), 128);
  EXPECT_EQ(pointer_alignment(static_cast<std::uint64_t>(o[1].y)), 128);
  EXPECT_EQ(pointer_alignment(static_cast<std::uint64_t>(o[2].x)), 256);
  EXPECT_EQ(cuda_gemm_layout_problem(s), "");  // 128 bytes is enough once cuBLASLt is told
}

TEST(GemmLayout, SixteenBitExpertsMustStartSixteenByteAligned) {
  // k = 100 BF16 values: a row is 200 bytes, so the second expert's activations start at byte
  // 200 * 3 = 600, 8 bytes off the 16-byte grid.
  EXPECT_EQ(cuda_gemm_layout_problem({{3, 2}, 64, 100, ElementType::kBf16, true}),
            "gemm: bf16 group 1's activations start at byte 600 of the packed buffer, not 16-byte aligned (cuBLAS's "
            "tensor-core kernels need 16-byte aligned operands: k and n times the element size must be multiples of "
            "16 bytes)");
  // n = 12 FP16: an output row is 24 bytes, so the second expert's outputs start at byte 72 (its
  // activations, at 384, and weights, at 1536, are aligned).
  EXPECT_EQ(cuda_gemm_layout_problem({{3, 5}, 12, 64, ElementType::kFp16, true}),
            "gemm: fp16 group 1's outputs start at byte 72 of the packed buffer, not 16-byte aligned (cuBLAS's "
            "tensor-core kernels need 16-byte aligned operands: k and n times the element size must be multiples of "
            "16 bytes)");
  // A dense GEMM has one pointer each, at the buffer's start; an empty first expert moves nothing.
  EXPECT_EQ(cuda_gemm_layout_problem({{3}, 64, 100, ElementType::kBf16, false}), "");
  EXPECT_EQ(cuda_gemm_layout_problem({{0, 3}, 64, 100, ElementType::kBf16, true}), "");
  // Every default MoE shape of the capture is fine in every dtype, whatever the rows.
  for (auto t : {ElementType::kBf16, ElementType::kFp16, ElementType::kFp8E4M3, ElementType::kFp32})
    for (auto [n, k] : {std::pair{4096, 7168}, {7168, 2048}, {3072, 4096}, {4096, 1536}, {1536, 2048}, {2048, 768}})
      EXPECT_EQ(cuda_gemm_layout_problem({{1, 17, 0, 333, 4096}, n, k, t, true}), "") << n << "x" << k;
}

TEST(GemmLayout, Fp8NeedsMultiplesOfSixteen) {
  EXPECT_EQ(cuda_gemm_layout_problem({{4}, 64, 120, ElementType::kFp8E4M3, false}),
            "fp8 gemm: cuBLASLt FP8 needs n and k multiples of 16, got n=64 k=120");
  EXPECT_EQ(gemm_output_type(ElementType::kFp8E4M3), ElementType::kBf16);
  EXPECT_EQ(gemm_output_type(ElementType::kFp32), ElementType::kFp32);
}

TEST(LocalGpu, BothWaysOfBindingGpusToProcesses) {
  // Every process sees the node's 8 GPUs: the local rank picks.
  EXPECT_EQ(local_gpu(0, 8, 8), 0);
  EXPECT_EQ(local_gpu(5, 8, 8), 5);
  EXPECT_EQ(local_gpu(3, 4, 8), 3);
  // One GPU per task (srun --gpus-per-task=1): device 0 of each, whatever the local rank.
  EXPECT_EQ(local_gpu(5, 8, 1), 0);
  EXPECT_EQ(local_gpu(0, 1, 1), 0);
  EXPECT_EQ(error_of([] { local_gpu(2, 8, 2); }),
            "all-to-all (mpi): 8 processes on a node where each sees 2 GPUs: let every process see all GPUs of its "
            "node, or bind one GPU per task (srun --gpus-per-task=1)");
  EXPECT_EQ(error_of([] { local_gpu(1, 2, 0); }), "all-to-all (mpi): no GPU visible to node-local rank 1");
}

TEST(DeviceState, ReasonNamesAndWhichOnesCountAsThrottling) {
  EXPECT_EQ(clocks_reason_names(0), "none");
  EXPECT_EQ(clocks_reason_names(kClocksGpuIdle), "none");  // a sample between repetitions
  EXPECT_EQ(clocks_reason_names(kClocksSwPowerCap | kClocksHwThermalSlowdown), "sw_power_cap;hw_thermal_slowdown");
  EXPECT_EQ(clocks_reason_names(0x10000), "other");
  // The NVML bit values (nvml.h).
  EXPECT_EQ(kClocksSwPowerCap, 0x4u);
  EXPECT_EQ(kClocksSwThermalSlowdown, 0x20u);
  EXPECT_EQ(kClocksHwPowerBrakeSlowdown, 0x80u);
  EXPECT_FALSE(throttled(0));
  EXPECT_FALSE(throttled(kClocksSwPowerCap | kClocksGpuIdle | kClocksApplicationsSetting));
  for (auto bit : {kClocksHwSlowdown, kClocksSwThermalSlowdown, kClocksHwThermalSlowdown, kClocksHwPowerBrakeSlowdown})
    EXPECT_TRUE(throttled(bit | kClocksSwPowerCap)) << bit;
}

TEST(DeviceState, MergeKeepsTheLowestClocksAndEveryReason) {
  DeviceState s;
  s.merge({});
  EXPECT_FALSE(s.known);
  s.merge({true, 1980, 3201, kClocksSwPowerCap});
  s.merge({true, 1755, 3201, kClocksSwThermalSlowdown});
  s.merge({});  // an unknown reading changes nothing
  EXPECT_TRUE(s.known);
  EXPECT_EQ(s.sm_clock_mhz, 1755);
  EXPECT_EQ(s.memory_clock_mhz, 3201);
  EXPECT_EQ(s.reasons, kClocksSwPowerCap | kClocksSwThermalSlowdown);
}

TEST(NvmlMonitor, WithoutTheLibraryEveryReadingIsUnknown) {
  const NvmlMonitor m({"0000:04:00.0"}, "libmoesim-no-such-nvml.so");
  EXPECT_FALSE(m.available());
  EXPECT_FALSE(m.sample().known);
  EXPECT_EQ(m.driver_release(), "n/a");
}

}  // namespace
}  // namespace moesim::kernels
