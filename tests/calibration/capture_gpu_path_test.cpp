// The capture's GPU path without a GPU: captures with `backend: cuda` over the fake benches
// (kernels/fake_benches.h), whose device info is shaped like the CUDA backend's, go through the
// same metadata, rows, fit and check as a real one; plus the all-to-all bandwidths, the
// throttling policy and what the fit says about kernels and throttled rows. The last tests run
// the real thing and skip without a GPU.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <algorithm>
#include <functional>
#include <string>

#include "calibration/all_to_all_volumes.h"
#include "calibration/calibration_error.h"
#include "calibration/capture.h"
#include "calibration/capture_table.h"
#include "calibration/hardware_yaml.h"
#include "calibration/hardware_yaml_writer.h"
#include "calibration/measurements.h"
#include "calibration/profile_check.h"
#include "calibration/profile_fit.h"
#include "kernels/fake_benches.h"

namespace moesim::calibration {
namespace {

CaptureBenches fake(const kernels::FakeDevice& d = {}, int gpus = 0) {
  return {[d] { return kernels::make_fake_gemm_bench(d); },
          [d, gpus] { return kernels::make_fake_all_to_all_bench(d, gpus); }};
}

CaptureOptions cuda(const std::string& suite, const std::string& dtype = "bf16") {
  CaptureOptions o;
  o.backend = CaptureBackend::kCuda;
  o.suite = capture_value<CaptureSuite>(suite);
  if (o.suite != CaptureSuite::kAllToAll) o.dtype = capture_value<CaptureDtype>(dtype);
  o.shapes = {{4096, 7168}, {7168, 2048}};
  o.m = {16, 128, 1024};
  o.groups = {8, 32};
  o.sizes = {64 << 10, 1 << 20, 16 << 20};
  o.repetitions = 5;
  o.command_line = "moesim calibrate capture (test)";
  return o;
}

// The capture as the file moesim writes, read back.
MeasurementFile written(const CaptureOutput& out, const std::string& name) {
  return read_measurements(parse_calibration_csv(calibration_csv_text(out.table), name));
}

std::string calibration_error_of(const std::function<void()>& f) {
  return moesim::testing::thrown_message<CalibrationError>(f);
}

TEST(CudaShapedCapture, EverySuiteWritesEachMetadataKeyOnce) {
  for (const char* suite : {"gemm", "grouped-gemm", "alltoall"}) {
    SCOPED_TRACE(suite);
    const CaptureOutput out = run_capture(cuda(suite), fake());
    const MeasurementFile f = written(out, std::string(suite) + ".csv");  // a key twice would throw here
    EXPECT_EQ(f.backend, CaptureBackend::kCuda);
    EXPECT_EQ(f.sm_count, 132);
    const CalibrationTable& t = out.table;
    EXPECT_EQ(t.meta("clock"), "cuda events, each start event behind a launch gate (host launch time not timed)");
    EXPECT_EQ(t.meta("exposed_launches").value_or("").rfind("0 of ", 0), 0u);
    EXPECT_EQ(t.meta("throttled_cases"), "0 (flagged in column throttled)");
    if (std::string(suite) == "alltoall") {
      EXPECT_EQ(t.meta("launcher"), "single process (fake)");
      EXPECT_EQ(t.meta("ranks"), "8");
      EXPECT_FALSE(t.meta("gemm_kernel").has_value());
      EXPECT_EQ(f.all_to_all.size(), 6u);
    } else {
      EXPECT_FALSE(t.meta("launcher").has_value());
      EXPECT_EQ(f.gemm_kernel, kernels::make_fake_gemm_bench({})->kernel(kernels::ElementType::kBf16,
                                                                         std::string(suite) == "grouped-gemm"));
    }
  }
}

TEST(CudaShapedCapture, ADeviceKeyTwiceIsRefusedBeforeAFileIsWritten) {
  kernels::DeviceInfo device = kernels::fake_device_info();
  device.add("launcher", "mpi");
  device.add("launcher", "mpi (again)");
  EXPECT_EQ(calibration_error_of([&] {
              capture_table(cuda("alltoall"), {CaptureDtype::kBf16, 3, 5, 1}, device, "", {});
            }),
            "capture: metadata key 'launcher' written twice ('mpi', then 'mpi (again)')");
  kernels::DeviceInfo clash = kernels::fake_device_info();
  clash.add("suite", "gemm");
  EXPECT_EQ(calibration_error_of([&] {
              capture_table(cuda("gemm"), {CaptureDtype::kBf16, 3, 5, 1}, clash, "k", {});
            }),
            "capture: metadata key 'suite' written twice ('gemm', then 'gemm')");
}

TEST(CudaShapedCapture, AllToAllRowsCarryEachRankAndNcclTestsBandwidths) {
  const CaptureOutput out = run_capture(cuda("alltoall"), fake());
  const CalibrationTable& t = out.table;
  const auto& row = t.rows[2].cells;  // 1 MiB per peer, uniform
  const auto cell = [&](const char* c) { return row[static_cast<std::size_t>(t.column(c))]; };
  EXPECT_EQ(cell("peer_bytes"), "1048576");
  EXPECT_EQ(cell("algorithm"), "fake");
  const double median = std::stod(cell("median_ns"));
  // nccl-tests: algbw = a rank's whole buffer (8 chunks) / time; busbw = algbw · 7/8.
  EXPECT_NEAR(std::stod(cell("algbw_gbs")), 8.0 * (1 << 20) / median, 1e-3);
  EXPECT_NEAR(std::stod(cell("busbw_gbs")), 7.0 * (1 << 20) / median, 1e-3);
  const std::string ranks = cell("rank_median_ns");
  EXPECT_EQ(std::count(ranks.begin(), ranks.end(), ';'), 7);
  EXPECT_EQ(cell("slowest_rank"), "7");  // the fake's last rank is the slowest
  EXPECT_EQ(cell("clock_reasons"), "sw_power_cap");
  EXPECT_EQ(cell("throttled"), "no");
}

TEST(AllToAllVolumes, BandwidthsByNcclTestsDefinitions) {
  const kernels::AllToAllPattern uniform{4, std::vector<std::int64_t>(16, 1000)};
  const AllToAllVolumes v = all_to_all_volumes(uniform);
  EXPECT_EQ(v.max_send, 3000);
  EXPECT_EQ(v.max_recv, 3000);
  EXPECT_EQ(v.total, 12000);
  EXPECT_EQ(v.max_buffer, 4000);
  const AllToAllBandwidth bw = all_to_all_bandwidth(uniform, 100);
  EXPECT_DOUBLE_EQ(bw.algbw_gbs, 40);  // 4000 bytes in 100 ns
  EXPECT_DOUBLE_EQ(bw.busbw_gbs, 30);  // × 3/4
  // Nothing to itself, rank 0 receives most: its receive buffer is the busiest.
  const kernels::AllToAllPattern skewed{2, {0, 600, 900, 0}};
  EXPECT_EQ(all_to_all_volumes(skewed).max_buffer, 900);
  EXPECT_DOUBLE_EQ(all_to_all_bandwidth(skewed, 10).algbw_gbs, 90);
  EXPECT_DOUBLE_EQ(all_to_all_bandwidth(skewed, 10).busbw_gbs, 45);
}

TEST(CudaShapedCapture, TheAllToAllCsvRoundTripsThroughFitAndCheck) {
  const MeasurementFile gemm = written(run_capture(cuda("grouped-gemm"), fake()), "grouped.csv");
  const MeasurementFile a2a = written(run_capture(cuda("alltoall"), fake()), "a2a.csv");
  FitOptions o;
  o.base = HardwareFile{*find_hardware_preset("h200"), "h200"};
  o.base_label = "h200";
  const FitResult fit = fit_profile({gemm, a2a}, o);
  const auto has = [&](const std::string& prefix) {
    return std::any_of(fit.report.begin(), fit.report.end(),
                       [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  EXPECT_TRUE(has("alltoall: 6 rows"));
  EXPECT_TRUE(has("bf16 grouped-gemm kernel: fake: analytic"));
  const HardwareProfile profile = load_hardware_yaml(hardware_yaml_text(fit.file, fit.comments), "fit.yaml");
  ASSERT_TRUE(profile.scaleup_latency_ns.has_value());
  const CheckResult a2a_check = check_profile(profile, {a2a});
  EXPECT_EQ(a2a_check.rows.size(), 6u);
  // The fake all-to-all is latency + bytes / bandwidth, the fitted model itself, up to its
  // 1.75 % rank skew.
  EXPECT_LT(a2a_check.median_error, 0.03);
  EXPECT_NEAR(*profile.scaleup_latency_ns, 12000, 1500);
  EXPECT_EQ(check_profile(profile, {gemm, a2a}).rows.size(), gemm.gemm.size() + 6);
}

TEST(Throttling, FlaggedRowsStayAndTheFitSaysSo) {
  CaptureOptions o = cuda("grouped-gemm");
  const kernels::FakeDevice hot{8, kernels::kClocksHwThermalSlowdown | kernels::kClocksSwPowerCap, 2};
  const CaptureOutput out = run_capture(o, fake(hot));
  const CalibrationTable& t = out.table;
  ASSERT_EQ(t.rows.size(), 24u);  // 2 shapes × 2 group counts × 3 m × 2 distributions
  EXPECT_EQ(t.meta("throttled_cases"), "12 (flagged in column throttled)");
  EXPECT_EQ(t.rows[1].cells[static_cast<std::size_t>(t.column("throttled"))], "yes");
  EXPECT_EQ(t.rows[1].cells[static_cast<std::size_t>(t.column("clock_reasons"))], "sw_power_cap;hw_thermal_slowdown");
  EXPECT_EQ(t.rows[1].cells[static_cast<std::size_t>(t.column("sm_mhz_min"))], "1500");
  EXPECT_EQ(t.rows[0].cells[static_cast<std::size_t>(t.column("throttled"))], "no");
  const MeasurementFile f = written(out, "hot.csv");
  EXPECT_FALSE(f.gemm[0].throttled);
  EXPECT_TRUE(f.gemm[1].throttled);
  FitOptions fo;
  fo.base = HardwareFile{*find_hardware_preset("h200"), "h200"};
  const FitResult fit = fit_profile({f}, fo);
  EXPECT_NE(
      std::find(fit.report.begin(), fit.report.end(),
                "warning: 12 of 24 rows were measured while the GPU throttled (column throttled = yes): recapture "
                "them, or capture with --throttled refuse"),
      fit.report.end());
}

TEST(Throttling, RefusedCasesAreLeftOutAndListed) {
  CaptureOptions o = cuda("gemm");
  o.shapes = {{4096, 7168}};
  o.m = {16, 128};
  o.throttled = ThrottlePolicy::kRefuse;
  const CaptureOutput out = run_capture(o, fake({8, kernels::kClocksSwThermalSlowdown, 2}));
  EXPECT_EQ(out.cases, 1);
  EXPECT_EQ(out.table.meta("skipped_cases"), "1");
  EXPECT_EQ(out.table.meta("skipped_1"),
            "gemm m=128 n=4096 k=7168: ran throttled (sw_thermal_slowdown, SM clock down to 1500 MHz)");
  EXPECT_EQ(out.table.meta("throttled_cases"), "1 (refused)");
  // Every case throttled: nothing to write, the first reason is the error.
  try {
    run_capture(o, fake({8, kernels::kClocksSwThermalSlowdown, 1}));
    ADD_FAILURE() << "no error";
  } catch (const kernels::KernelError& e) {
    EXPECT_STREQ(e.what(), "ran throttled (sw_thermal_slowdown, SM clock down to 1500 MHz)");
  }
  EXPECT_EQ(calibration_error_of([&] { capture_value<ThrottlePolicy>("ignore"); }),
            "--throttled: unknown throttle policy 'ignore' (valid: flag, refuse)");
}

TEST(FitKernels, OneKernelPerDtypeAndSuite) {
  MeasurementFile a = written(run_capture(cuda("gemm", "fp8"), fake()), "a.csv");
  MeasurementFile b = a;
  b.table.source = "b.csv";
  b.gemm_kernel = "cublasLtMatmul per expert, replayed as one CUDA graph; E4M3 in, BF16 out, per-tensor FP32 scales";
  FitOptions o;
  o.base = HardwareFile{*find_hardware_preset("h200"), "h200"};
  EXPECT_EQ(calibration_error_of([&] {
              fit_profile({a, b}, o);
            }),
            "b.csv: fp8 gemm rows from '" + b.gemm_kernel + "', but a.csv has them from '" + a.gemm_kernel +
                "': fit one kernel per dtype");
  b.suite = CaptureSuite::kGroupedGemm;  // another suite may run another kernel
  b.gemm_kernel += " (grouped)";
  EXPECT_NO_THROW(fit_profile({a, b}, o));
}

// The same paths on real GPUs (skipped without them): the CUDA all-to-all's metadata loads back
// (it once wrote `launcher` twice), and the FP8 rows name the block-scaled kernel on Hopper.
TEST(CaptureOnGpu, AllToAllCsvLoadsBack) {
  std::string why;
  const int gpus = kernels::visible_cuda_devices(why);
  if (gpus < 2) GTEST_SKIP() << "needs 2 GPUs: " << (gpus == 0 ? why : "1 visible");
  CaptureOptions o = cuda("alltoall");
  o.sizes = {64 << 10, 1 << 20};
  const CaptureOutput out = run_capture(o);
  const MeasurementFile f = written(out, "a2a.csv");
  EXPECT_EQ(f.all_to_all.size(), 4u);
  EXPECT_EQ(out.table.meta("launcher"), "single process (ncclCommInitAll)");
  EXPECT_EQ(out.table.meta("exposed_launches").value_or("").rfind("0 of ", 0), 0u);
}

TEST(CaptureOnGpu, Fp8RowsNameTheirKernel) {
  std::string why;
  if (kernels::visible_cuda_devices(why) == 0) GTEST_SKIP() << "no GPU: " << why;
  CaptureOptions o = cuda("grouped-gemm", "fp8");
  o.shapes = {{2048, 768}};
  o.m = {16};
  o.groups = {8};
  const CaptureOutput out = run_capture(o);
  const std::string kernel = written(out, "fp8.csv").gemm_kernel;
  EXPECT_NE(kernel.find("one CUDA graph"), std::string::npos) << kernel;
  if (out.table.meta("compute_capability") == "9.0") {  // Hopper: cuBLASLt has DeepGEMM's block scales
    EXPECT_NE(kernel.find("128x128 weight FP32 block scales"), std::string::npos) << kernel;
  }
}

}  // namespace
}  // namespace moesim::calibration
