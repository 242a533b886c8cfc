#include "workloads/rng.h"

#include <gtest/gtest.h>

#include <vector>

namespace moesim::workloads {
namespace {

std::vector<std::uint64_t> draws(Rng rng, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(rng());
  return out;
}

TEST(RandomStreams, SameSeedAndLabelReproduce) {
  EXPECT_EQ(draws(make_stream(7, "arrivals"), 64), draws(make_stream(7, "arrivals"), 64));
}

TEST(RandomStreams, LabelsGiveIndependentStreams) {
  const auto a = draws(make_stream(7, "arrivals"), 64);
  const auto r = draws(make_stream(7, "routing"), 64);
  const auto r2 = draws(make_stream(7, "routinh"), 64);  // one character apart
  int equal = 0;
  for (int i = 0; i < 64; ++i) equal += (a[i] == r[i]) + (r[i] == r2[i]);
  EXPECT_EQ(equal, 0);
}

TEST(RandomStreams, SeedsGiveDifferentStreams) {
  const auto s1 = draws(make_stream(1, "routing"), 64);
  const auto s2 = draws(make_stream(2, "routing"), 64);
  EXPECT_NE(s1, s2);
  // An empty label is a stream too, distinct from the seed's labelled ones.
  EXPECT_NE(draws(make_stream(1, ""), 8), draws(make_stream(1, "routing"), 8));
}

TEST(RandomStreams, SplitMixIsABijectionOnSmallInputs) {
  // Consecutive seeds must not collide (SplitMix64 is a bijection of 64-bit integers).
  std::vector<std::uint64_t> v;
  for (std::uint64_t x = 0; x < 1000; ++x) v.push_back(splitmix64(x));
  std::sort(v.begin(), v.end());
  EXPECT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
}

}  // namespace
}  // namespace moesim::workloads
