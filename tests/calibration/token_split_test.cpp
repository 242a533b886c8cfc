// Token and byte splits of the capture suites, against hand-computed apportionments.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "calibration/calibration_error.h"
#include "calibration/token_split.h"

namespace moesim::calibration {
namespace {

using V = std::vector<std::int64_t>;

TEST(TokenSplit, UniformGivesTheRemainderToTheFirstGroups) {
  EXPECT_EQ(split_tokens(10, 4, SplitDistribution::kUniform, 1.0), (V{3, 3, 2, 2}));
  EXPECT_EQ(split_tokens(8, 4, SplitDistribution::kUniform, 1.0), (V{2, 2, 2, 2}));
  EXPECT_EQ(split_tokens(2, 4, SplitDistribution::kUniform, 1.0), (V{1, 1, 0, 0}));
}

TEST(TokenSplit, ZipfByLargestRemainder) {
  // Weights 1, 1/2, 1/3, 1/4 (sum 25/12): exact shares of 100 are 48, 24, 16, 12.
  EXPECT_EQ(split_tokens(100, 4, SplitDistribution::kZipf, 1.0), (V{48, 24, 16, 12}));
  // 10 over 1, 1/2, 1/3 (sum 11/6): 5.45, 2.73, 1.82 -> floors 5, 2, 1; the two largest
  // remainders (0.82, 0.73) get the two tokens left.
  EXPECT_EQ(split_tokens(10, 3, SplitDistribution::kZipf, 1.0), (V{5, 3, 2}));
  // s = 0 is uniform.
  EXPECT_EQ(split_tokens(9, 3, SplitDistribution::kZipf, 0.0), (V{3, 3, 3}));
  const V big = split_tokens(32768, 32, SplitDistribution::kZipf, 1.2);
  EXPECT_EQ(std::accumulate(big.begin(), big.end(), std::int64_t{0}), 32768);
  EXPECT_TRUE(std::is_sorted(big.rbegin(), big.rend()));
}

TEST(TokenSplit, RejectsBadArguments) {
  EXPECT_THROW(split_tokens(10, 0, SplitDistribution::kUniform, 1), CalibrationError);
  EXPECT_THROW(capture_value<SplitDistribution>("normal"), CalibrationError);
  EXPECT_THROW(split_tokens(10, 2, SplitDistribution::kZipf, -1), CalibrationError);
}

TEST(AllToAllBytes, UniformFillsEveryEntry) {
  EXPECT_EQ(all_to_all_bytes(3, 1000, SplitDistribution::kUniform, 1.0), V(9, 1000));
}

TEST(AllToAllBytes, ZipfMakesLowRanksHotReceiversAndKeepsTheMean) {
  // 2 ranks, weights 1 and 1/2: 0 -> 1 carries 1/2 and 1 -> 0 carries 1 of a 1.5 total, scaled
  // so that the two entries average 3072 bytes: 2048 and 4096.
  EXPECT_EQ(all_to_all_bytes(2, 3072, SplitDistribution::kZipf, 1.0), (V{0, 2048, 4096, 0}));
  const V b = all_to_all_bytes(4, 1 << 20, SplitDistribution::kZipf, 1.0);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(b[static_cast<std::size_t>(s * 4 + s)], 0);
  EXPECT_GT(b[1 * 4 + 0], b[1 * 4 + 3]);  // rank 0 receives more than rank 3
  EXPECT_EQ(b[1 * 4 + 0] % 256, 0);
  const double mean = static_cast<double>(std::accumulate(b.begin(), b.end(), std::int64_t{0})) / 12;
  EXPECT_NEAR(mean, 1 << 20, 256);
}

}  // namespace
}  // namespace moesim::calibration
