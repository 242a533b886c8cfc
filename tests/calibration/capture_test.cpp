// The capture runner on the CPU backend: one row per case with the suite's columns, metadata
// that read_measurements accepts, and one clear error per bad option.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <string>

#include "calibration/calibration_error.h"
#include "calibration/capture.h"
#include "calibration/measurements.h"
#include "kernels/bench_types.h"

namespace moesim::calibration {
namespace {

std::string error_of(const CaptureOptions& o) {
  return moesim::testing::thrown_message<CalibrationError>([&] { run_capture(o); });
}

CaptureOptions tiny_gemm() {
  CaptureOptions o;
  o.suite = CaptureSuite::kGroupedGemm;
  o.shapes = {{32, 64}};
  o.m = {2, 6};
  o.groups = {3};
  o.repetitions = 4;
  o.rounds = 2;
  o.command_line = "moesim calibrate capture (test)";
  return o;
}

TEST(Capture, GroupedGemmRowsPerCaseWithMetadata) {
  int calls = 0;
  const CaptureOutput out = run_capture(tiny_gemm(), [&](int done, int total, const std::string&) {
    ++calls;
    EXPECT_EQ(total, 8);  // 2 rounds × (2 m × 2 distributions)
    EXPECT_LE(done, total);
  });
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(out.cases, 4);
  EXPECT_TRUE(out.is_root);
  const CalibrationTable& t = out.table;
  EXPECT_EQ(t.columns, gemm_columns());
  ASSERT_EQ(t.rows.size(), 4u);
  for (const char* key : {"format", "suite", "backend", "device", "sm_count", "driver", "cuda_runtime", "cublas",
                          "nccl", "date", "command", "clock"})
    EXPECT_TRUE(t.meta(key).has_value()) << key;
  EXPECT_EQ(t.meta("nccl"), "n/a");
  EXPECT_EQ(t.meta("command"), "moesim calibrate capture (test)");
  EXPECT_EQ(t.meta("repetitions"), "4");
  // Round-trip through the text and the typed reader.
  const MeasurementFile f = read_measurements(parse_calibration_csv(calibration_csv_text(t), "cap.csv"));
  ASSERT_EQ(f.gemm.size(), 4u);
  EXPECT_EQ(f.gemm[0].m_per_group, (std::vector<std::int64_t>{2, 2, 2}));  // 3 × 2 uniform
  // 6 rows, zipf(1) over 3: 3.27, 1.64, 1.09 -> floors 3, 1, 1 and the last row to the largest
  // remainder (0.64).
  EXPECT_EQ(f.gemm[1].m_per_group, (std::vector<std::int64_t>{3, 2, 1}));
  EXPECT_EQ(t.rows[1].cells[t.column("distribution")], "zipf");
  EXPECT_EQ(t.rows[1].cells[t.column("reps")], "4");
  for (const auto& r : f.gemm) EXPECT_GT(r.time.median_ns, 0);
}

TEST(Capture, AllToAllRowsCarryTheBusiestRanksVolumes) {
  CaptureOptions o;
  o.suite = CaptureSuite::kAllToAll;
  o.sizes = {3072};
  o.ranks = 2;
  o.repetitions = 3;
  o.rounds = 1;
  o.clock = CaptureClock::kCpu;
  const CaptureOutput out = run_capture(o);
  const CalibrationTable& t = out.table;
  EXPECT_EQ(t.columns, all_to_all_columns());
  ASSERT_EQ(t.rows.size(), 2u);
  const auto cell = [&](int row, const char* col) {
    return t.rows[static_cast<std::size_t>(row)].cells[t.column(col)];
  };
  EXPECT_EQ(cell(0, "max_send_bytes"), "3072");  // uniform: one peer, own chunk excluded
  EXPECT_EQ(cell(1, "max_recv_bytes"), "4096");  // zipf: rank 0 receives 4096 (token_split_test)
  EXPECT_EQ(cell(1, "total_bytes"), "6144");
  EXPECT_EQ(cell(0, "algorithm"), "memcpy");
  EXPECT_EQ(t.meta("sm_count"), "2");
  EXPECT_EQ(t.meta("clock"), "thread cpu time (CLOCK_THREAD_CPUTIME_ID)");
  EXPECT_EQ(read_measurements(t).all_to_all.size(), 2u);
}

// The capture's named choices: a name resolves to the value at its index in the registry, the
// value prints as the name, and an unknown name is one line naming the flag and the valid words.
template <typename Enum>
void expect_round_trip() {
  const auto entries = capture_choice<Enum>.entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(capture_value<Enum>(entries[i].name)), i) << entries[i].name;
    EXPECT_EQ(to_string(static_cast<Enum>(i)), entries[i].name);
  }
}

template <typename Resolve>
std::string name_error(Resolve resolve, std::string_view name) {
  return moesim::testing::thrown_message<CalibrationError>([&] { resolve(name); });
}

TEST(CaptureNames, NamesAndValuesRoundTrip) {
  expect_round_trip<CaptureBackend>();
  expect_round_trip<CaptureSuite>();
  expect_round_trip<CaptureDtype>();
  expect_round_trip<SplitDistribution>();
  expect_round_trip<CaptureClock>();
  expect_round_trip<CaptureLauncher>();
  expect_round_trip<ThrottlePolicy>();
  EXPECT_EQ(to_string(CaptureSuite::kGroupedGemm), "grouped-gemm");
  EXPECT_EQ(to_string(CaptureSuite::kAllToAll), "alltoall");
  EXPECT_EQ(to_string(CaptureBackend::kFake), "fake");
}

TEST(CaptureNames, UnknownNamesNameTheFlag) {
  EXPECT_EQ(name_error(capture_value<CaptureBackend>, "gpu"),
            "--backend: unknown backend 'gpu'; did you mean 'cpu'? (valid: cpu, cuda, fake)");
  EXPECT_EQ(name_error(capture_value<CaptureSuite>, "gemms"),
            "--suite: unknown suite 'gemms'; did you mean 'gemm'? (valid: gemm, grouped-gemm, alltoall)");
  EXPECT_EQ(name_error(capture_value<CaptureDtype>, "int4"),
            "--dtype: unknown dtype 'int4' (valid: bf16, fp16, fp8, fp32)");
  EXPECT_EQ(name_error(capture_value<CaptureDtype>, "fp9"),
            "--dtype: unknown dtype 'fp9'; did you mean 'fp8'? (valid: bf16, fp16, fp8, fp32)");
  EXPECT_EQ(name_error(capture_value<SplitDistribution>, "normal"),
            "--distribution: unknown distribution 'normal' (valid: uniform, zipf)");
  EXPECT_EQ(name_error(capture_value<CaptureClock>, "tsc"), "--clock: unknown clock 'tsc' (valid: wall, cpu)");
  EXPECT_EQ(name_error(capture_value<CaptureLauncher>, "slurm"),
            "--launcher: unknown launcher 'slurm' (valid: local, mpi)");
  EXPECT_EQ(name_error(capture_value<ThrottlePolicy>, "ignore"),
            "--throttled: unknown throttle policy 'ignore' (valid: flag, refuse)");
}

TEST(Capture, BadOptionsNameTheFlag) {
  CaptureOptions o = tiny_gemm();
  o.launcher = CaptureLauncher::kMpi;
  EXPECT_EQ(error_of(o), "--launcher: mpi launches the cuda (or fake) alltoall suite only");
  o = tiny_gemm();
  o.clock = CaptureClock::kCpu;
  o.backend = CaptureBackend::kFake;
  EXPECT_EQ(error_of(o), "--clock: the cuda backend times with CUDA events (cpu clock is for --backend cpu)");
  o = tiny_gemm();
  o.max_tokens = 5;  // every case has 6 or 18 rows
  EXPECT_EQ(error_of(o), "--suite: no cases to measure (every case was filtered out)");
  o = tiny_gemm();
  o.suite = CaptureSuite::kAllToAll;
  o.ranks = 1;
  EXPECT_EQ(error_of(o), "--ranks: an all-to-all needs at least 2 ranks, got 1");
  // The cpu backend runs fp32 only: the kernel says so.
  o = tiny_gemm();
  o.dtype = CaptureDtype::kBf16;
  EXPECT_THROW(run_capture(o), ::moesim::kernels::KernelError);
}

}  // namespace
}  // namespace moesim::calibration
