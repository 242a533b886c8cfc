// The xGMI mesh preset (AMD Instinct nodes): every pair of a node's GPUs has its own link, so a
// pair's traffic is limited to that one link, and only traffic spread over every peer reaches the
// device's whole scale-up bandwidth (an NVSwitch node gives any pattern all of it).
#include <gtest/gtest.h>

#include <string>

#include "tests/topology/topology_test_util.h"
#include "topology/all_to_all.h"
#include "topology/routing.h"

namespace moesim::topology {
namespace {

using testing::identity;

constexpr double kB = 1 << 20;  // bytes per peer

ClusterConfig node(const char* preset) {
  ClusterConfig c = cluster_preset_defaults(preset);
  c.nodes = 1;
  c.scaleup_bytes_per_s = 448e9;  // MI300X: 7 links of 64 GB/s per direction; the same total on hgx
  c.scaleup_latency_ns = 0;
  c.a2a_dispatch_fixed_ns = c.a2a_combine_fixed_ns = c.a2a_dispatch_peer_ns = c.a2a_combine_peer_ns = 0;
  return c;
}

TEST(XgmiMesh, EveryPairHasItsOwnLinkOfASeventhOfTheScaleUp) {
  const Cluster c(node("xgmi"));
  EXPECT_FALSE(c.regular());  // costed flow by flow over the pairs' links
  for (int s = 0; s < 8; ++s)
    for (int d = 0; d < 8; ++d) {
      if (s == d) continue;
      const Route& r = c.route(s, d);
      ASSERT_EQ(r.hops.size(), 1u) << s << " -> " << d;
      EXPECT_DOUBLE_EQ(r.hops[0].fraction, 1.0);
      EXPECT_DOUBLE_EQ(c.link_props(r.hops[0].link).bytes_per_s, 64e9);
      EXPECT_EQ(c.link_props(r.hops[0].link).cls, LinkClass::kScaleUp);
    }
}

// Two GPUs exchanging: one 64 GB/s link on the mesh, the whole 448 GB/s through NVSwitch.
TEST(XgmiMesh, APairIsLimitedToItsOneLink) {
  const Cluster mesh(node("xgmi")), hgx(node("hgx"));
  TrafficMatrix t(8);
  t.at(0, 1) = t.at(1, 0) = 7 * kB;
  const double on_mesh = all_to_all(mesh, identity(8), t).duration_ns;
  const double on_switch = all_to_all(hgx, identity(8), t).duration_ns;
  const auto& cfg = mesh.config();
  EXPECT_NEAR(on_mesh, 7 * kB / (64e9 * cfg.scaleup_efficiency) * 1e9, 1e-6 * on_mesh);
  EXPECT_NEAR(on_mesh / on_switch, 7.0, 1e-6);
}

// The same bytes spread evenly over all seven peers use every link: as fast as NVSwitch.
TEST(XgmiMesh, AnEvenAllToAllOverTheWholeNodeReachesTheFullScaleUp) {
  const Cluster mesh(node("xgmi")), hgx(node("hgx"));
  TrafficMatrix t(8);
  for (int s = 0; s < 8; ++s)
    for (int d = 0; d < 8; ++d)
      if (s != d) t.at(s, d) = kB;
  const double on_mesh = all_to_all(mesh, identity(8), t).duration_ns;
  const double on_switch = all_to_all(hgx, identity(8), t).duration_ns;
  EXPECT_NEAR(on_mesh / on_switch, 1.0, 1e-6);
}

// EP4 on half a node: each rank reaches only three of its seven links, 3/7 of the scale-up.
TEST(XgmiMesh, AnAllToAllOverHalfTheNodeUsesThreeOfSevenLinks) {
  const Cluster mesh(node("xgmi")), hgx(node("hgx"));
  TrafficMatrix t(4);
  for (int s = 0; s < 4; ++s)
    for (int d = 0; d < 4; ++d)
      if (s != d) t.at(s, d) = kB;
  const double on_mesh = all_to_all(mesh, identity(4), t).duration_ns;
  const double on_switch = all_to_all(hgx, identity(4), t).duration_ns;
  EXPECT_NEAR(on_mesh / on_switch, 7.0 / 3.0, 1e-6);
}

TEST(XgmiMesh, TwoNodesReachEachOtherOverTheNics) {
  ClusterConfig cfg = node("xgmi");
  cfg.nodes = 2;
  const Cluster c(cfg);
  EXPECT_EQ(c.num_devices(), 16);
  const Route& r = c.route(0, 8);
  ASSERT_FALSE(r.hops.empty());
  bool scaleout = false;
  for (const RouteHop& h : r.hops) {
    EXPECT_NE(c.link_props(h.link).cls, LinkClass::kScaleUp);
    scaleout = scaleout || c.link_props(h.link).cls == LinkClass::kScaleOut;
  }
  EXPECT_TRUE(scaleout);
}

}  // namespace
}  // namespace moesim::topology
