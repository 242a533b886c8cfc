// The `moe.comm` registry (sim/moe_comm.h): every name maps to its typed value, an unknown name
// lists every valid one, and the facts MoeCommConfig derives from the value.
#include "sim/moe_comm.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/deployment_config.h"
#include "topology/cluster.h"

namespace moesim::sim {
namespace {

TEST(MoeComm, EveryNameMapsToItsTypedValue) {
  const auto all = moe_comm_algorithms();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(workloads::join_names(all), "direct, hierarchical, low-latency, allgather-reducescatter");
  for (const char* name : {"direct", "hierarchical", "low-latency"})
    EXPECT_EQ(find_moe_comm(name), &topology::find_all_to_all(name)) << name;
  EXPECT_EQ(find_moe_comm("allgather-reducescatter"), nullptr);
}

TEST(MoeComm, AnUnknownNameListsEveryValidOne) {
  try {
    find_moe_comm("ring");
    ADD_FAILURE() << "an unknown name was found";
  } catch (const topology::TopologyError& e) {
    EXPECT_STREQ(e.what(),
                 "unknown all-to-all algorithm 'ring' (valid: direct, hierarchical, low-latency, "
                 "allgather-reducescatter)");
  }
}

TEST(MoeComm, ConfigFactsFollowTheAlgorithm) {
  MoeCommConfig c;
  EXPECT_EQ(c.all_to_all, &topology::direct_all_to_all());
  c.ll_network_only = true;
  EXPECT_FALSE(c.gather_scatter());
  EXPECT_FALSE(c.low_latency());
  EXPECT_FALSE(c.network_only());  // a property of the low-latency kernels alone
  c.all_to_all = find_moe_comm("low-latency");
  EXPECT_TRUE(c.low_latency());
  EXPECT_TRUE(c.network_only());
  c.all_to_all = find_moe_comm("hierarchical");
  EXPECT_FALSE(c.network_only());
  c.all_to_all = find_moe_comm("allgather-reducescatter");
  EXPECT_TRUE(c.gather_scatter());
  EXPECT_FALSE(c.low_latency());
  EXPECT_FALSE(c.network_only());
}

}  // namespace
}  // namespace moesim::sim
