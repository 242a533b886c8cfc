// PrefixCache: longest cached prefix, LRU eviction from a chain's end, block conservation.
#include "sim/prefix_cache.h"

#include <gtest/gtest.h>

namespace moesim::sim {
namespace {

workloads::PrefixKey conversation(std::uint64_t session, std::uint64_t system = 0, std::int64_t system_tokens = 0) {
  workloads::PrefixKey k;
  k.session = session;
  k.system = system;
  k.system_tokens = system_tokens;
  return k;
}

TEST(PrefixCache, MatchesTheLongestCachedPrefixInWholeBlocks) {
  PrefixCache c(16);
  const auto a = conversation(1);
  EXPECT_EQ(c.peek(a, 1000), 0);
  c.insert(a, 330, 1000);  // 20 full blocks (the partial 21st is not named)
  EXPECT_EQ(c.size(), 20);
  EXPECT_EQ(c.peek(a, 1000), 20);
  EXPECT_EQ(c.peek(a, 100), 6);  // a shorter prompt matches only its own blocks
  EXPECT_EQ(c.peek(conversation(2), 1000), 0);
  EXPECT_EQ(c.match(a, 1000), 20);
  EXPECT_EQ(c.size(), 20);  // a match caches nothing new
}

TEST(PrefixCache, SharedSystemPromptBlocksMatchAcrossSessions) {
  PrefixCache c(16);
  c.insert(conversation(1, 1, 160), 480, 1000);  // 10 system blocks, then 20 of session 1
  EXPECT_EQ(c.peek(conversation(2, 1, 160), 480), 10);
  EXPECT_EQ(c.peek(conversation(2, 2, 160), 480), 0);  // another system prompt
  EXPECT_EQ(c.peek(conversation(2, 1, 170), 480), 10);
}

TEST(PrefixCache, EvictsTheLeastRecentlyUsedFromTheEndOfAChain) {
  PrefixCache c(16);
  const auto a = conversation(1), b = conversation(2);
  c.insert(a, 160, 100);  // 10 blocks
  c.insert(b, 160, 100);  // 10 more, newer
  c.fit(15);              // five go: a's last five, the oldest
  EXPECT_EQ(c.peek(a, 160), 5);
  EXPECT_EQ(c.peek(b, 160), 10);
  c.match(a, 160);  // a is used again: now b is the older
  c.fit(10);
  EXPECT_EQ(c.peek(a, 160), 5);
  EXPECT_EQ(c.peek(b, 160), 5);
  // Every block inserted is resident or evicted.
  EXPECT_EQ(c.inserted(), 20);
  EXPECT_EQ(c.evicted(), 10);
  EXPECT_EQ(c.inserted(), c.size() + c.evicted());
  c.fit(0);
  EXPECT_EQ(c.size(), 0);
  EXPECT_EQ(c.peek(a, 160), 0);
  EXPECT_EQ(c.inserted(), c.size() + c.evicted());
}

TEST(PrefixCache, InsertFitsTheRoomGivenAndReusesFreedSlots) {
  PrefixCache c(16);
  for (std::uint64_t s = 1; s <= 50; ++s) c.insert(conversation(s), 320, 64);
  EXPECT_EQ(c.size(), 64);
  EXPECT_EQ(c.peek(conversation(50), 320), 20);  // the newest whole
  EXPECT_EQ(c.peek(conversation(1), 320), 0);
  EXPECT_EQ(c.inserted(), 50 * 20);
  EXPECT_EQ(c.inserted(), c.size() + c.evicted());
}

}  // namespace
}  // namespace moesim::sim

namespace moesim::sim {
namespace {

TEST(PrefixCacheTiers, EvictedBlocksMoveDownATierAndAreFoundThere) {
  PrefixCache hbm(16), host(16), remote(16);
  host.set_capacity(15);
  remote.set_capacity(100);
  hbm.set_lower(&host);
  host.set_lower(&remote);
  const auto a = conversation(1), b = conversation(2);
  hbm.insert(a, 320, 100);  // 20 blocks
  hbm.insert(b, 320, 100);
  hbm.fit(10);  // 30 blocks leave HBM: a's 20 and b's last 10
  EXPECT_EQ(hbm.peek(b, 320), 10);
  EXPECT_EQ(host.received(), 30);
  EXPECT_EQ(host.size(), 15);  // the 15 most recent of them; the rest went on to the store
  EXPECT_EQ(remote.received(), 15);
  // b's lookup goes on below HBM where its run stopped.
  EXPECT_EQ(host.run_from(b, 320, 10), 10);
  // a's tail left HBM first and went on to the store; its head, the newest in host memory, stays.
  EXPECT_EQ(host.run_from(a, 320, 0), 5);
  EXPECT_EQ(remote.run_from(a, 320, 5), 15);
  for (const PrefixCache* c : {&hbm, &host, &remote}) EXPECT_EQ(c->inserted(), c->size() + c->evicted());
  EXPECT_EQ(host.received(), hbm.evicted());
  EXPECT_EQ(remote.received(), host.evicted());
  // Loading a run back caches it in HBM again.
  hbm.touch_run(b, 10, 10, 100);
  EXPECT_EQ(hbm.peek(b, 320), 20);
}

}  // namespace
}  // namespace moesim::sim
