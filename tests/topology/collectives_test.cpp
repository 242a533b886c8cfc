// Tensor-parallel collectives (ring and tree) and point-to-point transfers.
#include <gtest/gtest.h>

#include <vector>

#include "topology/collectives.h"

namespace moesim::topology {
namespace {

Cluster hgx(int nodes) {
  ClusterConfig c = cluster_preset_defaults("hgx");
  c.nodes = nodes;
  return Cluster(c);
}

const std::vector<int> kTp8 = {0, 1, 2, 3, 4, 5, 6, 7};
constexpr double kS = 64 << 20;

TEST(Collectives, RingAllReduceMovesTwiceTheBufferOverNvlink) {
  const Cluster c = hgx(1);
  for (const char* fidelity : {"analytic", "flow"}) {
    const CommResult r =
        collective(c, kTp8, CollectiveKind::kAllReduce, kS, {CollectiveAlgorithm::kRing, &find_fidelity(fidelity)});
    const double bw = c.effective_scaleup_bytes_per_s();
    // 2 (n-1) steps of S/n on every NVLink port, each paying the NVLink route latency.
    EXPECT_NEAR(r.transfer_ns, 2.0 * 7 / 8 * kS / bw * 1e9, 1e-6 * r.transfer_ns) << fidelity;
    EXPECT_NEAR(r.latency_ns, 14 * c.config().scaleup_latency_ns, 1e-6) << fidelity;
    EXPECT_NEAR(r.max_scaleup_bytes, 2.0 * 7 / 8 * kS, 1);
  }
}

TEST(Collectives, AllGatherAndReduceScatterMoveHalfAnAllReduce) {
  const Cluster c = hgx(1);
  const double ar = collective(c, kTp8, CollectiveKind::kAllReduce, kS).transfer_ns;
  EXPECT_NEAR(collective(c, kTp8, CollectiveKind::kAllGather, kS).transfer_ns, ar / 2, 1e-6 * ar);
  EXPECT_NEAR(collective(c, kTp8, CollectiveKind::kReduceScatter, kS).transfer_ns, ar / 2, 1e-6 * ar);
}

TEST(Collectives, TreeTradesBandwidthForFewerLatencies) {
  const Cluster c = hgx(1);
  const CommResult ring = collective(c, kTp8, CollectiveKind::kAllGather, 8 * 1024,
                                     {CollectiveAlgorithm::kRing, &topology::analytic_fidelity()});
  const CommResult tree = collective(c, kTp8, CollectiveKind::kAllGather, 8 * 1024,
                                     {CollectiveAlgorithm::kTree, &topology::analytic_fidelity()});
  EXPECT_LT(tree.duration_ns, ring.duration_ns);  // 3 steps instead of 7: small messages favour the tree
  EXPECT_NEAR(tree.latency_ns, 3 * c.config().scaleup_latency_ns, 1e-6);
  // Same bytes per member overall: (n-1)/n of the buffer.
  const CommResult big =
      collective(c, kTp8, CollectiveKind::kAllGather, kS, {CollectiveAlgorithm::kTree, &topology::analytic_fidelity()});
  EXPECT_NEAR(big.transfer_ns, collective(c, kTp8, CollectiveKind::kAllGather, kS).transfer_ns, 1e-6 * big.transfer_ns);
  const CommResult ar =
      collective(c, kTp8, CollectiveKind::kAllReduce, kS, {CollectiveAlgorithm::kTree, &topology::flow_fidelity()});
  EXPECT_GT(ar.duration_ns, 0);
}

TEST(Collectives, RingAcrossNodesIsBoundByTheNic) {
  const Cluster c = hgx(2);
  const std::vector<int> group = {0, 8};  // one GPU per node: every step crosses the network
  const CommResult r = collective(c, group, CollectiveKind::kAllReduce, kS);
  EXPECT_NEAR(r.transfer_ns, 2.0 * 1 / 2 * kS / c.effective_nic_bytes_per_s() * 1e9, 1e-6 * r.transfer_ns);
}

TEST(Collectives, BadInputThrows) {
  const Cluster c = hgx(1);
  EXPECT_THROW(collective(c, {0, 99}, CollectiveKind::kAllReduce, kS), TopologyError);
  EXPECT_THROW(point_to_point(c, {{0, 42, 1.0}}), TopologyError);
}

TEST(PointToPoint, KvTransferAcrossNodesUsesTheNicAndSharesIt) {
  const Cluster c = hgx(2);
  const double one = point_to_point(c, {{0, 8, kS}}).transfer_ns;
  EXPECT_NEAR(one, kS / c.effective_nic_bytes_per_s() * 1e9, 1e-6 * one);
  // Two transfers into one GPU share its NIC, at both fidelities.
  for (const char* f : {"analytic", "flow"})
    EXPECT_NEAR(point_to_point(c, {{0, 8, kS}, {1, 8, kS}}, find_fidelity(f)).transfer_ns, 2 * one, 1e-6 * one) << f;
  // Inside a node it is NVLink.
  EXPECT_NEAR(point_to_point(c, {{0, 1, kS}}).transfer_ns, kS / c.effective_scaleup_bytes_per_s() * 1e9, 1);
}

TEST(CollectiveRegistry, NamesResolveInTheEnumsOrder) {
  const std::vector<AlgorithmInfo> all = collective_algorithms();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "ring");
  EXPECT_EQ(all[1].name, "tree");
  EXPECT_EQ(find_collective_algorithm("ring"), CollectiveAlgorithm::kRing);
  EXPECT_EQ(find_collective_algorithm("tree"), CollectiveAlgorithm::kTree);
  EXPECT_EQ(CollectiveOptions{}.algorithm, CollectiveAlgorithm::kRing);
  try {
    find_collective_algorithm("butterfly");
    ADD_FAILURE() << "an unknown algorithm was found";
  } catch (const TopologyError& e) {
    EXPECT_STREQ(e.what(), "unknown collective algorithm 'butterfly' (valid: ring, tree)");
  }
}

}  // namespace
}  // namespace moesim::topology
