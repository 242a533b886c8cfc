// `moesim calibrate capture --backend fake` from the command line: the fake backend is loaded as
// a plugin through the same entry points as the CUDA one, its captures load back into fit and
// check, a bad --throttled is one line with exit code 2, and, under mpirun, a process that fails
// ends the whole job instead of leaving the others waiting for it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

fs::path fake_dir(const std::string& name) { return moesim::testing::scratch_dir("moesim_calibrate_fake_", name); }

using moesim::testing::read_file;

TEST(CalibrateFakeCli, CaptureFitAndCheckThroughThePlugin) {
  const auto d = fake_dir("loop");
  const std::string gemm = (d / "g.csv").string(), a2a = (d / "a.csv").string(), prof = (d / "p.yaml").string();
  auto r = run_moesim(
      "calibrate capture --backend fake --suite grouped-gemm --dtype fp8 --shape 4096x7168,2048x768 "
      "--groups 8 --m 16,256,1024 -q -o " +
      gemm);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_file(gemm);
  EXPECT_NE(
      text.find("\n# backend: fake\n# device: moesim fake GPU (analytic timings, nothing measured)\n# dry_run: yes"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\n# gemm_kernel: fake: analytic"), std::string::npos);
  r = run_moesim("calibrate capture --backend fake --suite alltoall --ranks 4 --size 64KiB,1MiB,16MiB -q -o " + a2a);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string a2a_text = read_file(a2a);
  EXPECT_NE(a2a_text.find("\n# launcher: single process (fake)\n"), std::string::npos) << a2a_text;
  EXPECT_NE(a2a_text.find(",algbw_gbs,busbw_gbs,rank_median_ns,slowest_rank,"), std::string::npos);
  r = run_moesim("calibrate fit " + gemm + " " + a2a + " --base h200 -o " + prof);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("alltoall: 6 rows"), std::string::npos) << r.out;
  r = run_moesim("calibrate check " + prof + " " + a2a + " --max-median-error 0.05");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("check passed"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(CalibrateFakeCli, BadThrottlePolicyIsOneLine) {
  const auto d = fake_dir("flag");
  const auto r =
      run_moesim("calibrate capture --backend fake --suite gemm --throttled maybe -o " + (d / "x.csv").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: --throttled: unknown throttle policy 'maybe' (valid: flag, refuse)\n");
  EXPECT_FALSE(fs::exists(d / "x.csv"));
  fs::remove_all(d);
}

#if defined(MOESIM_MPIEXEC)
std::string mpirun(const std::string& env, const std::string& args) {
  return env +
         " OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 " MOESIM_MPIEXEC
         " -np 2 --oversubscribe " MOESIM_BINARY " " +
         args;
}

int exit_code_of(const std::string& cmd, std::string& out) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CalibrateFakeMpi, EveryRankTimesAndRankZeroWrites) {
  const auto d = fake_dir("mpi");
  const std::string csv = (d / "a.csv").string();
  std::string out;
  ASSERT_EQ(
      exit_code_of(
          mpirun("", "calibrate capture --backend fake --suite alltoall --launcher mpi --size 1MiB -q -o " + csv), out),
      0)
      << out;
  const std::string text = read_file(csv);
  EXPECT_NE(text.find("\n# ranks: 2\n# nodes: 1\n# launcher: mpi (fake: one process per fake GPU)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("# launcher:"), text.rfind("# launcher:"));  // once
  fs::remove_all(d);
}

// Rank 1 fails on its first case while rank 0 waits for it at a barrier. The failing process
// must neither finalise MPI while unwinding (MPI_Finalize waits for rank 0, which waits for rank
// 1: the job hangs until `timeout` kills it, exit code 124) nor leave the others running
// (MPI_Abort ends them; srun, unlike mpirun, does not by default when one task exits).
TEST(CalibrateFakeMpi, AFailingRankEndsTheJob) {
  const auto d = fake_dir("mpi_fail");
  std::string out;
  const int rc = exit_code_of(mpirun("MOESIM_FAKE_FAIL_RANK=1",
                                     "calibrate capture --backend fake --suite alltoall "
                                     "--launcher mpi --size 1MiB -q -o " +
                                         (d / "a.csv").string()),
                              out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("moesim: kernels: fake failure on rank 1 (GPU 1, MOESIM_FAKE_FAIL_RANK)\n"), std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(d / "a.csv"));
  fs::remove_all(d);
}
#endif

}  // namespace
