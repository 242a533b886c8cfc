#include "models/quantity.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace moesim::models {
namespace {

TEST(Quantity, DecimalPrefixesAreExactToTheText) {
  EXPECT_EQ(parse_bandwidth_bytes_per_s("3.35TB/s"), 3.35e12);
  EXPECT_EQ(parse_flops_per_s("989TFLOPS"), 989e12);
  EXPECT_EQ(parse_flops_per_s("2.25PFLOPS"), 2.25e15);
  EXPECT_EQ(parse_flops_per_s("1504TOPS"), 1504e12);
  EXPECT_EQ(parse_bytes("186111111111.11111B"), 13.4e12 / 72);
  EXPECT_EQ(parse_bytes("1.5e3 GB"), 1.5e12);
}

TEST(Quantity, BinaryPrefixesAndBits) {
  EXPECT_EQ(parse_bytes("81559MiB"), 81559.0 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("141GiB"), 141.0 * (1ULL << 30));
  EXPECT_EQ(parse_bandwidth_bytes_per_s("400Gbps"), 50e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("0 B/s"), 0.0);
}

TEST(Quantity, RejectsMissingUnknownOrNegative) {
  for (const char* bad : {"80", "80 GB/s", "-1GB", "GB", "", "1e400GB"})
    EXPECT_THROW(parse_bytes(bad), std::invalid_argument) << bad;
  try {
    parse_flops_per_s("989 teraflops");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("expected a compute rate with a unit (FLOPS, KFLOPS")) << e.what();
    EXPECT_TRUE(std::string(e.what()).ends_with("got '989 teraflops'")) << e.what();
  }
}

}  // namespace
}  // namespace moesim::models
