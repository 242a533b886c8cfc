// A rank per die: the dies of a package are devices of their own, joined by the package link, each
// with its own port to the scale-up switch; and the HCCS mesh of Ascend 910B servers, where (as on
// the xGMI mesh) a pair is limited to its own link.
#include <gtest/gtest.h>

#include <string>

#include "tests/topology/topology_test_util.h"
#include "topology/all_to_all.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

ClusterConfig cloudmatrix_dies() {
  ClusterConfig c = cluster_preset_defaults("cloudmatrix384");
  c.dies_per_package = 2;
  c.devices_per_node *= 2;   // 768 dies
  c.devices_per_board *= 2;  // boards of 8 packages, 16 dies
  c.scaleup_bytes_per_s /= 2;
  c.package_link_bytes_per_s = 196e9;
  return c;
}

TEST(PackageDies, DiesOfAPackageTakeTheirOwnLink) {
  const Cluster c(cloudmatrix_dies());
  EXPECT_EQ(c.num_devices(), 768);
  EXPECT_TRUE(c.regular());           // the analytic all-to-all still bounds each die by its UB port
  const Route& pair = c.route(0, 1);  // one package
  ASSERT_EQ(pair.hops.size(), 1u);
  EXPECT_DOUBLE_EQ(c.link_props(pair.hops[0].link).bytes_per_s, 196e9);
  EXPECT_EQ(c.link_name(pair.hops[0].link), "die0 -> die1 (scale-up)");
  const Route& board = c.route(0, 2);  // the next package on the board: through its L1 switch
  EXPECT_EQ(board.hops.size(), 2u);
  const Route& far = c.route(0, 767);  // another board: L1, L2, L1
  EXPECT_EQ(far.hops.size(), 4u);
  EXPECT_DOUBLE_EQ(c.link_props(c.device_links(0).scaleup_out).bytes_per_s, 196e9);
}

TEST(PackageDies, PackagesMustTileTheNode) {
  ClusterConfig c = cloudmatrix_dies();
  c.devices_per_board = 15;
  c.devices_per_node = 765;
  try {
    Cluster{c};
    FAIL() << "accepted";
  } catch (const TopologyError& e) {
    EXPECT_EQ(std::string(e.what()), "packages of 2 dies do not tile nodes of 765 devices (boards of 15)");
  }
}

// HCCS: 7 links of 28 GB/s per direction per NPU; a pair is limited to its own link, an even
// all-to-all over the server reaches all seven.
TEST(HccsMesh, APairIsLimitedToItsOneLink) {
  ClusterConfig cfg = cluster_preset_defaults("hccs");
  cfg.scaleup_latency_ns = 0;
  cfg.a2a_dispatch_fixed_ns = cfg.a2a_combine_fixed_ns = cfg.a2a_dispatch_peer_ns = cfg.a2a_combine_peer_ns = 0;
  const Cluster mesh(cfg);
  EXPECT_FALSE(mesh.regular());
  const Route& r = mesh.route(2, 5);
  ASSERT_EQ(r.hops.size(), 1u);
  EXPECT_DOUBLE_EQ(mesh.link_props(r.hops[0].link).bytes_per_s, 28e9);
  EXPECT_EQ(mesh.link_name(r.hops[0].link), "npu2 -> npu5 (scale-up)");
  constexpr double kB = 1 << 20;
  TrafficMatrix pair(8), even(8);
  pair.at(0, 1) = pair.at(1, 0) = 7 * kB;
  for (int s = 0; s < 8; ++s)
    for (int d = 0; d < 8; ++d)
      if (s != d) even.at(s, d) = kB;
  const double t_pair = all_to_all(mesh, testing::identity(8), pair).duration_ns;
  const double t_even = all_to_all(mesh, testing::identity(8), even).duration_ns;
  EXPECT_NEAR(t_pair, 7 * kB / (28e9 * cfg.scaleup_efficiency) * 1e9, 1e-6 * t_pair);
  EXPECT_NEAR(t_pair / t_even, 7.0, 1e-6);  // the same bytes per device, over one link or seven
}

}  // namespace
}  // namespace moesim::topology
