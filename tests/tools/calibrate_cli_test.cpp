// `moesim calibrate capture | fit | check` from the command line: the CPU loop, exit codes, and
// one-line errors for bad data and for the CUDA backend without a GPU.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "kernels/bench_types.h"
#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

fs::path temp_dir(const std::string& name) { return moesim::testing::scratch_dir("moesim_calibrate_cli_", name); }

using moesim::testing::read_file;

TEST(CalibrateCli, CpuCaptureFitAndCheck) {
  const auto d = temp_dir("loop");
  const std::string gemm = (d / "gemm.csv").string(), a2a = (d / "a2a.csv").string(), prof = (d / "cpu.yaml").string();
  auto r = run_moesim(
      "calibrate capture --backend cpu --suite grouped-gemm --shape 128x256,256x128 --groups 4 --m 8,32 "
      "--reps 6 --rounds 2 --clock cpu -q -o " +
      gemm);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_file(gemm);
  EXPECT_EQ(text.rfind("# format: moesim-calibration 1\n# suite: grouped-gemm\n# backend: cpu\n", 0), 0u) << text;
  EXPECT_NE(text.find("# command: moesim calibrate capture --backend cpu --suite grouped-gemm --shape 128x256,256x128"),
            std::string::npos);
  EXPECT_NE(text.find("\nsuite,dtype,groups,tokens,distribution,skew,m_per_group,n,k,"), std::string::npos);
  r = run_moesim("calibrate capture --suite alltoall --size 128KiB,512KiB --reps 6 --rounds 2 --clock cpu -q -o " +
                 a2a);
  ASSERT_EQ(r.exit_code, 0) << r.out;

  r = run_moesim("calibrate fit " + gemm + " " + a2a + " --name lab-cpu -o " + prof);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("profile 'lab-cpu'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fp32: 8 rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("alltoall: 4 rows"), std::string::npos) << r.out;
  const std::string yaml = read_file(prof);
  EXPECT_NE(yaml.find("\nname: lab-cpu\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("\ngemm:\n  fp32:"), std::string::npos) << yaml;  // a note may follow the key

  r = run_moesim("calibrate check " + prof + " " + gemm + " " + a2a + " --max-median-error 1 --all --residuals " +
                 (d / "res.csv").string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("profile 'lab-cpu' against 12 rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check passed"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(d / "res.csv").rfind("file,line,case,measured_ns,predicted_ns,error\n", 0), 0u);

  r = run_moesim("calibrate check " + prof + " " + gemm + " --max-median-error 0 --max-error 0.000001");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("check FAILED: median error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; max error"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(CalibrateCli, BadDataIsOneLineWithFileAndLine) {
  const auto d = temp_dir("bad");
  const std::string bad = (d / "bad.csv").string();
  std::ofstream(bad) << "# format: moesim-calibration 1\n# suite: gemm\n# backend: cpu\n# device: x\n# sm_count: 1\n"
                        "dtype,m_per_group,n,k,median_ns,p10_ns,p90_ns\n"
                        "fp32,4,128,256,abc,1,2\n";
  auto r = run_moesim("calibrate fit " + bad + " -o " + (d / "p.yaml").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + bad + ":7: column 'median_ns': expected a number, got 'abc'\n");
  std::ofstream(bad, std::ios::trunc) << "";
  r = run_moesim("calibrate check h800 " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + bad + ": empty file (expected '# key: value' metadata and a header row)\n");
  r = run_moesim("calibrate fit " + bad + " --base h2000 -o " + (d / "p.yaml").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: " + bad + ": empty file (expected '# key: value' metadata and a header row)\n");
  fs::remove_all(d);
}

TEST(CalibrateCli, CudaBackendWithoutAGpuExitsTwoWithOneLine) {
  std::string why;
  if (moesim::kernels::visible_cuda_devices(why) > 0) GTEST_SKIP() << "a GPU is visible here";
  const auto d = temp_dir("cuda");
  const auto out = d / "x.csv";
  for (const char* suite : {"gemm", "grouped-gemm", "alltoall"}) {
    const auto r = run_moesim(std::string("calibrate capture --backend cuda --suite ") + suite + " -o " + out.string());
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out.rfind("moesim: kernels: ", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find("CUDA"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
  }
  fs::remove_all(d);
}

// An unknown word for a named choice is resolved before anything runs: one line naming the flag
// and the valid words, exit code 2, no file written.
TEST(CalibrateCli, UnknownWordsNameTheFlag) {
  const auto d = temp_dir("words");
  const auto out = d / "x.csv";
  const std::pair<const char*, const char*> cases[] = {
      {"--backend gpu", "--backend: unknown backend 'gpu'; did you mean 'cpu'? (valid: cpu, cuda, fake)"},
      {"--suite gemms", "--suite: unknown suite 'gemms'; did you mean 'gemm'? (valid: gemm, grouped-gemm, alltoall)"},
      {"--distribution zipf,normal", "--distribution: unknown distribution 'normal' (valid: uniform, zipf)"},
      {"--clock tsc", "--clock: unknown clock 'tsc' (valid: wall, cpu)"},
      {"--launcher slurm", "--launcher: unknown launcher 'slurm' (valid: local, mpi)"},
      {"--dtype fp9", "--dtype: unknown dtype 'fp9'; did you mean 'fp8'? (valid: bf16, fp16, fp8, fp32)"},
  };
  for (const auto& [flags, message] : cases) {
    const auto r = run_moesim(std::string("calibrate capture ") + flags + " -o " + out.string());
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_EQ(r.out, std::string("moesim: ") + message + "\n");
    EXPECT_FALSE(fs::exists(out));
  }
  fs::remove_all(d);
}

TEST(CalibrateCli, ListShowsBackendsAndSuites) {
  const auto r = run_moesim("list");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("calibration backends:\n  cpu "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("calibration suites:\n  gemm "), std::string::npos) << r.out;
}

}  // namespace
