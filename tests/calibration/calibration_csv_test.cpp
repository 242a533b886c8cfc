// Calibration data files: a capture's table round-trips, and every malformed file gets one
// error naming the file and line (the messages are asserted verbatim).
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include "tests/text_replace.h"

#include <string>

#include "calibration/calibration_csv.h"
#include "calibration/calibration_error.h"
#include "calibration/measurements.h"

namespace moesim::calibration {
namespace {

const std::string kHeader =
    "# format: moesim-calibration 1\n"                                                        // 1
    "# suite: grouped-gemm\n"                                                                 // 2
    "# backend: cpu\n"                                                                        // 3
    "# device: Test CPU\n"                                                                    // 4
    "# sm_count: 1\n"                                                                         // 5
    "# command: moesim calibrate capture --suite grouped-gemm -o a: b.csv\n";                 // 6
const std::string kColumns = "suite,dtype,groups,m_per_group,n,k,median_ns,p10_ns,p90_ns\n";  // 7
const std::string kGood = kHeader + kColumns +
                          "grouped-gemm,fp32,3,4;0;9,256,512,1000.5,900,1200\n"  // 8
                          "\n"                                                   // 9
                          "grouped-gemm,fp32,2,8;8,512,256,2000,1800,2500\n";    // 10

std::string error_of(const std::string& text) {
  return moesim::testing::thrown_message<CalibrationError>(
      [&] { read_measurements(parse_calibration_csv(text, "data.csv")); });
}

using moesim::testing::replace;

TEST(CalibrationCsv, ReadsMetadataColumnsAndTypedRows) {
  const MeasurementFile f = read_measurements(parse_calibration_csv(kGood, "data.csv"));
  EXPECT_EQ(f.suite, CaptureSuite::kGroupedGemm);
  EXPECT_EQ(f.backend, CaptureBackend::kCpu);
  EXPECT_EQ(f.device, "Test CPU");
  EXPECT_EQ(f.sm_count, 1);
  EXPECT_EQ(f.table.meta("command"), "moesim calibrate capture --suite grouped-gemm -o a: b.csv");  // colons kept
  EXPECT_EQ(f.table.find_meta("suite")->line, 2);
  ASSERT_EQ(f.gemm.size(), 2u);
  EXPECT_EQ(f.gemm[0].line, 8);
  EXPECT_EQ(f.gemm[0].m_per_group, (std::vector<std::int64_t>{4, 0, 9}));
  EXPECT_EQ(f.gemm[0].n, 256);
  EXPECT_EQ(f.gemm[0].k, 512);
  EXPECT_TRUE(f.gemm[0].grouped);
  EXPECT_EQ(f.gemm[0].dtype, models::DType::kFp32);
  EXPECT_DOUBLE_EQ(f.gemm[0].time.median_ns, 1000.5);
  EXPECT_EQ(f.gemm[1].line, 10);  // the blank line is skipped, lines still count
}

TEST(CalibrationCsv, RoundTripsThroughText) {
  const CalibrationTable t = parse_calibration_csv(kGood + "\r\n", "data.csv");
  const CalibrationTable back = parse_calibration_csv(calibration_csv_text(t), "again.csv");
  EXPECT_EQ(back.columns, t.columns);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].cells, t.rows[1].cells);
  EXPECT_EQ(back.meta("command"), t.meta("command"));
}

TEST(CalibrationCsv, EmptyFile) {
  EXPECT_EQ(error_of(""), "data.csv: empty file (expected '# key: value' metadata and a header row)");
  EXPECT_EQ(error_of("\n  \n"), "data.csv: empty file (expected '# key: value' metadata and a header row)");
  EXPECT_EQ(error_of(kHeader), "data.csv: no header row (only metadata lines)");
  EXPECT_EQ(error_of(kHeader + kColumns), "data.csv:7: no measurement rows after the header");
}

TEST(CalibrationCsv, BadMetadata) {
  EXPECT_EQ(error_of(replace(kGood, "# backend: cpu", "# backend cpu")),
            "data.csv:3: bad metadata line '# backend cpu' (expected '# key: value', key in a-z, 0-9, _)");
  EXPECT_EQ(error_of(replace(kGood, "# backend: cpu", "# Back-end: cpu")),
            "data.csv:3: bad metadata line '# Back-end: cpu' (expected '# key: value', key in a-z, 0-9, _)");
  EXPECT_EQ(error_of(replace(kGood, "# backend: cpu", "# suite: gemm")),
            "data.csv:3: duplicate metadata key 'suite' (first on line 2)");
  EXPECT_EQ(error_of(kGood + "# late: 1\n"), "data.csv:11: metadata line after the header row (line 7)");
  EXPECT_EQ(error_of(replace(kGood, "# device: Test CPU\n", "")),
            "data.csv:6: missing metadata 'device' (a '# device: ...' line before the header)");
  EXPECT_EQ(error_of(replace(kGood, "grouped-gemm\n", "grouped-gem\n")),
            "data.csv:2: metadata 'suite': unknown suite 'grouped-gem'; did you mean 'grouped-gemm'? (valid: gemm, "
            "grouped-gemm, alltoall)");
  EXPECT_EQ(error_of(replace(kGood, "# backend: cpu", "# backend: gpu")),
            "data.csv:3: metadata 'backend': unknown backend 'gpu'; did you mean 'cpu'? (valid: cpu, cuda, fake)");
  EXPECT_EQ(error_of(replace(kGood, "moesim-calibration 1", "moesim-calibration 2")),
            "data.csv:1: metadata 'format': expected 'moesim-calibration 1', got 'moesim-calibration 2'");
  EXPECT_EQ(error_of(replace(kGood, "# sm_count: 1", "# sm_count: many")),
            "data.csv:5: metadata 'sm_count': expected an integer >= 1, got 'many'");
}

TEST(CalibrationCsv, MissingColumns) {
  EXPECT_EQ(error_of(replace(replace(kGood, ",median_ns,", ",median,"), "", "")),
            "data.csv:7: missing column 'median_ns' (columns: suite, dtype, groups, m_per_group, n, k, median, p10_ns, "
            "p90_ns)");
  EXPECT_EQ(error_of(replace(kGood, "suite,dtype,groups", "suite,dtype,dtype")),
            "data.csv:7: duplicate column 'dtype'");
  EXPECT_EQ(error_of(replace(kGood, "suite,dtype,groups", "suite,,groups")),
            "data.csv:7: empty column name in the header row (column 2)");
}

TEST(CalibrationCsv, BadCells) {
  EXPECT_EQ(error_of(replace(kGood, "1000.5,900", "fast,900")),
            "data.csv:8: column 'median_ns': expected a number, got 'fast'");
  EXPECT_EQ(error_of(replace(kGood, "1000.5,900", ",900")),
            "data.csv:8: column 'median_ns': expected a number, got ''");
  EXPECT_EQ(error_of(replace(kGood, "1000.5,900", "-3,900")),
            "data.csv:8: column 'median_ns': expected a positive number, got '-3'");
  EXPECT_EQ(error_of(replace(kGood, "8;8,512", "8;x,512")),
            "data.csv:10: column 'm_per_group': expected an integer, got 'x'");
  EXPECT_EQ(error_of(replace(kGood, "8;8,512", "0;0,512")), "data.csv:10: column 'm_per_group': no rows in any group");
  EXPECT_EQ(error_of(replace(kGood, "256,512,1000.5", "256.5,512,1000.5")),
            "data.csv:8: column 'n': expected an integer, got '256.5'");
  EXPECT_EQ(error_of(replace(kGood, "256,512,1000.5", "0,512,1000.5")),
            "data.csv:8: column 'n': expected an integer >= 1, got '0'");
  EXPECT_EQ(error_of(replace(kGood, "fp32,3", "fp64,3")),
            "data.csv:8: column 'dtype': unknown dtype 'fp64'; did you mean 'fp8'? (valid: fp8, bf16, fp16, fp32)");
  EXPECT_EQ(error_of(replace(kGood, ",2500\n", "\n")), "data.csv:10: 8 cells, the header (line 7) has 9 columns");
}

TEST(CalibrationCsv, AllToAllRows) {
  const std::string text =
      "# format: moesim-calibration 1\n# suite: alltoall\n# backend: cpu\n# device: d\n# sm_count: 2\n"
      "ranks,max_send_bytes,max_recv_bytes,median_ns,p10_ns,p90_ns\n"
      "2,1024,2048,500,400,600\n";
  const MeasurementFile f = read_measurements(parse_calibration_csv(text, "a.csv"));
  ASSERT_EQ(f.all_to_all.size(), 1u);
  EXPECT_EQ(f.all_to_all[0].ranks, 2);
  EXPECT_DOUBLE_EQ(f.all_to_all[0].max_recv_bytes, 2048);
  EXPECT_EQ(error_of(replace(replace(text, "\n2,1024", "\n1,1024"), "", "")),
            "data.csv:7: column 'ranks': expected an integer >= 2, got '1'");
}

TEST(CalibrationCsv, MissingFile) {
  try {
    load_measurements("/nonexistent/dir/data.csv");
    FAIL() << "no error";
  } catch (const CalibrationError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/data.csv: cannot open calibration data");
  }
}

}  // namespace
}  // namespace moesim::calibration
