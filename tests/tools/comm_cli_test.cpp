// End-to-end tests of `moesim comm`: output lines, every preset, both fidelities, bad flags.
#include <gtest/gtest.h>

#include "tests/tools/cli_runner.h"

#include <algorithm>
#include <string>

namespace {

using moesim::testing::run_moesim;

double time_us(const std::string& out) {
  const auto at = out.find("time");
  return at == std::string::npos ? -1 : std::stod(out.substr(at + 4));
}

TEST(CommCli, LowLatencyDispatchPrintsTimeBandwidthAndBottleneck) {
  const auto r = run_moesim(
      "comm --cluster hgx --nodes 4 --device h800 --op dispatch --algo low-latency --ep 32 --tokens 128 "
      "--hidden 7168 --topk 8 --experts 288 --payload fp8 --routing uniform");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_GT(time_us(r.out), 10) << r.out;
  EXPECT_NE(r.out.find("GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bottleneck      node"), std::string::npos) << r.out;  // a NIC link
  // On a device, the whole kernel: its send and receive kernels around the transfer.
  const auto at = r.out.find("  kernel ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double kernel = std::stod(r.out.substr(at + 9));
  EXPECT_GT(kernel, time_us(r.out) + 1) << r.out;
  EXPECT_LT(kernel, time_us(r.out) * 1.2) << r.out;
  EXPECT_NE(r.out.find("without the receive hook"), std::string::npos) << r.out;
  // Without a device there is no cost model for the kernels, and other algorithms have none.
  const auto no_device = run_moesim("comm --cluster hgx --nodes 4 --op dispatch --algo low-latency --ep 32");
  ASSERT_EQ(no_device.exit_code, 0) << no_device.out;
  EXPECT_EQ(no_device.out.find("  kernel "), std::string::npos) << no_device.out;
  const auto normal =
      run_moesim("comm --cluster hgx --nodes 4 --device h800 --op dispatch --algo hierarchical --ep 32");
  ASSERT_EQ(normal.exit_code, 0) << normal.out;
  EXPECT_EQ(normal.out.find("  kernel "), std::string::npos) << normal.out;
}

TEST(CommCli, FlowFidelityIsNoFasterThanAnalytic) {
  const std::string base =
      "comm --cluster hgx --nodes 4 --op combine --payload bf16 --algo hierarchical --ep 32 "
      "--tokens 512 --routing node-limited";
  const auto a = run_moesim(base), f = run_moesim(base + " --fidelity flow");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(f.exit_code, 0) << f.out;
  EXPECT_GE(time_us(f.out), time_us(a.out) * 0.999);
}

TEST(CommCli, SupernodesKeepTheAllToAllOnTheScaleUpFabric) {
  const auto n = run_moesim("comm --cluster nvl72 --ep 72 --experts 288 --algo low-latency");
  ASSERT_EQ(n.exit_code, 0) << n.out;
  EXPECT_NE(n.out.find("(scale-up)"), std::string::npos) << n.out;
  const auto c = run_moesim("comm --cluster cloudmatrix384 --ep 256 --experts 256 --op combine --payload bf16");
  ASSERT_EQ(c.exit_code, 0) << c.out;
  EXPECT_NE(c.out.find("(scale-up)"), std::string::npos) << c.out;
}

TEST(CommCli, ANegativeSizeNamesTheFlagAndItsRange) {
  EXPECT_EQ(run_moesim("comm --tokens -5").out,
            "moesim: --tokens: Value -5 not in range 1 to 16777216 (see 'moesim --help')\n");
}

TEST(CommCli, BadFlagsExitTwoWithOneLine) {
  for (const char* args :
       {"comm --cluster torus", "comm --algo warp", "comm --fidelity packet", "comm --ep 64 --nodes 2",
        "comm --payload int3", "comm --op reduce", "comm --tokens", "comm --tokens -5", "comm --nodes -3",
        "comm --hidden 0", "comm --ep 0", "comm --experts -1"}) {
    const auto r = run_moesim(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << args << ": " << r.out;
  }
}

}  // namespace

TEST(CommCli, IntraNodeOverTheNetworkLoadsTheNics) {
  // 9 HGX nodes, uniform low-latency dispatch: a NIC carries 71 peers' pairs instead of 64.
  const std::string base =
      "comm --cluster hgx --nodes 9 --device h100 --op dispatch --algo low-latency --ep 72 "
      "--experts 288 --tokens 256";
  const auto s = run_moesim(base), n = run_moesim(base + " --intra-node network");
  ASSERT_EQ(s.exit_code, 0) << s.out;
  ASSERT_EQ(n.exit_code, 0) << n.out;
  EXPECT_GT(time_us(n.out), time_us(s.out) * 1.08) << n.out;
  EXPECT_LT(time_us(n.out), time_us(s.out) * 71.0 / 64.0 * 1.001) << n.out;
  const auto bad = run_moesim(base + " --intra-node nvswitch");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.out.find("--intra-node must be scale-up or network"), std::string::npos) << bad.out;
  const auto h = run_moesim("comm --cluster hgx --nodes 2 --ep 16 --algo hierarchical --intra-node network");
  EXPECT_EQ(h.exit_code, 2);
  EXPECT_NE(h.out.find("hierarchical all-to-all forwards over the scale-up fabric"), std::string::npos) << h.out;
}
