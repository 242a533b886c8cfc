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
