#include "models/dtype.h"

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace moesim::models {
namespace {

constexpr std::array kAll{DType::kMxfp4, DType::kNvfp4, DType::kFp8, DType::kInt8,
                          DType::kBf16,  DType::kFp16,  DType::kFp32};

TEST(DType, PrintThenParseRoundTripsEveryType) {
  for (DType t : kAll) {
    const auto name = to_string(t);
    ASSERT_NE(name, "?");
    const auto parsed = parse_dtype(name);
    ASSERT_TRUE(parsed.has_value()) << name;
    EXPECT_EQ(*parsed, t) << name;
  }
}

TEST(DType, NamesAreDistinct) {
  for (std::size_t i = 0; i < kAll.size(); ++i)
    for (std::size_t j = i + 1; j < kAll.size(); ++j) EXPECT_NE(to_string(kAll[i]), to_string(kAll[j]));
}

TEST(DType, UnknownOrMiscasedNameDoesNotParse) {
  EXPECT_FALSE(parse_dtype("").has_value());
  EXPECT_FALSE(parse_dtype("fp64").has_value());
  EXPECT_FALSE(parse_dtype("bf16 ").has_value());
}

TEST(DType, BytesPerElementFollowBitWidths) {
  // A format of b bits stores b / 8 bytes per element.
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kMxfp4), 4 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kNvfp4), 4 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kFp8), 8 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kInt8), 8 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kBf16), 16 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kFp16), 16 / 8.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(DType::kFp32), 32 / 8.0);
}

// A cached FP4 element carries its share of the block scale (NVFP4: an E4M3 byte per 16 values;
// MXFP4: an E8M0 byte per 32); FP8 and wider caches have none per token.
TEST(DType, CacheBytesIncludeFp4BlockScales) {
  EXPECT_DOUBLE_EQ(cache_bytes_per_element(DType::kNvfp4), 0.5 + 1.0 / 16);
  EXPECT_DOUBLE_EQ(cache_bytes_per_element(DType::kMxfp4), 0.5 + 1.0 / 32);
  EXPECT_DOUBLE_EQ(cache_bytes_per_element(DType::kFp8), 1.0);
  EXPECT_DOUBLE_EQ(cache_bytes_per_element(DType::kBf16), 2.0);
}

}  // namespace
}  // namespace moesim::models
