// `moesim show model` and `moesim gemm`: the model- and kernel-level what-ifs.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <string>

#include "tests/tools/cli_runner.h"

namespace {

using moesim::testing::run_moesim;

TEST(ShowModel, PrintsParametersFlopsAndMemory) {
  const auto r = run_moesim("show model deepseek-v3 --ep 32 --device h800");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("671.03 B total"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("58 MoE"), std::string::npos);
  EXPECT_NE(r.out.find("FLOPs per decode token"), std::string::npos);
  EXPECT_NE(r.out.find("KV cache"), std::string::npos);
  EXPECT_EQ(r.out.find("does not fit"), std::string::npos);
}

TEST(ShowModel, ReportsOutOfMemoryWithoutFailing) {
  const auto r = run_moesim("show model deepseek-v3 --ep 8");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("does not fit: out of memory"), std::string::npos) << r.out;
}

TEST(ShowModel, UnknownModelSuggestsTheClosestPreset) {
  const auto r = run_moesim("show model deepseek-v4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.rfind("moesim: show model: unknown model 'deepseek-v4'; did you mean 'deepseek-v3'?", 0), 0u)
      << r.out;
}

TEST(Gemm, PredictsDenseAndGroupedShapes) {
  const auto dense = run_moesim("gemm --device h800 --m 4096 --n 4096 --k 7168 --dtype fp8");
  ASSERT_EQ(dense.exit_code, 0) << dense.out;
  EXPECT_NE(dense.out.find("bound     compute"), std::string::npos) << dense.out;
  const auto small = run_moesim("gemm --m 16 --n 4096 --k 7168");
  ASSERT_EQ(small.exit_code, 0) << small.out;
  EXPECT_NE(small.out.find("bound     memory"), std::string::npos) << small.out;
  const auto grouped = run_moesim("gemm --counts 0,512,3,1000 --n 4096 --k 7168");
  ASSERT_EQ(grouped.exit_code, 0) << grouped.out;
  EXPECT_NE(grouped.out.find("4 groups, 1515 rows"), std::string::npos) << grouped.out;
}

TEST(Gemm, BadFlagsExitTwoWithOneLine) {
  const auto dtype = run_moesim("gemm --m 64 --n 4096 --k 7168 --dtype fp9");
  EXPECT_EQ(dtype.exit_code, 2);
  EXPECT_EQ(
      dtype.out,
      "moesim: --dtype: unknown dtype 'fp9'; did you mean 'fp8'? (valid: mxfp4, nvfp4, fp8, int8, bf16, fp16, fp32)\n");
  const auto mismatch = run_moesim("gemm --groups 3 --counts 1,2 --n 8 --k 8");
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_EQ(mismatch.out, "moesim: --counts has 2 values but --groups is 3\n");
  const auto missing = run_moesim("gemm --m 64 --k 7168");
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(RoutingWhatIf, BadFlagsExitTwoWithOneLine) {
  const auto expect = [](const std::string& args, const std::string& message) {
    const auto r = run_moesim(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out, "moesim: " + message + "\n") << args;
  };
  expect("routing --ep 0", "--ep: Value 0 not in range 1 to 1048576 (see 'moesim --help')");
  expect("routing --ep 8 --tokens -5", "--tokens: Value -5 not in range 0 to 4294967296 (see 'moesim --help')");
  expect("routing --ep 7", "placement 'contiguous': 256 experts + 0 redundant slots do not divide over ep 7");
  expect("routing --ep 8 --routing zipff",
         "--routing: unknown routing model 'zipff'; did you mean 'zipf'? (valid: uniform, zipf, hot-set, "
         "dirichlet-drift, layered-lognormal, group-limited, trace)");
  expect("routing --ep 8 --routing group-limited --base zip",
         "--base: unknown routing model 'zip'; did you mean 'zipf'? (valid: uniform, zipf, hot-set, "
         "dirichlet-drift, layered-lognormal, group-limited, trace)");
}

TEST(RoutingWhatIf, PrintsPerLayerImbalance) {
  const auto r = run_moesim("routing --ep 8 --model tiny-moe --routing zipf --tokens 512");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("tiny-moe: 16 routed experts, top-2, 3 MoE layers; routing zipf"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mean rank imbalance"), std::string::npos) << r.out;
}

}  // namespace

namespace {

TEST(Topo, SummarisesTheScenarioClusterAndWritesDot) {
  const std::string scenario = std::string(MOESIM_SOURCE_DIR) + "/scenarios/library/dsv3-h800-32gpu.yaml";
  const std::string dot = "/tmp/moesim_topo_test_" + std::to_string(::getpid()) + ".dot";
  const auto r = moesim::testing::run_moesim("topo " + scenario + " --dot " + dot);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("32 devices in 4 scale-up domains of 8"), std::string::npos) << r.out;
  std::ifstream in(dot);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "digraph G {");
  std::remove(dot.c_str());
  const auto bad = moesim::testing::run_moesim("topo " + scenario + " --set cluster.preset=torus");
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
