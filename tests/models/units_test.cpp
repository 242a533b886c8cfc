// The one unit parser (models/units.h): every spelling, the exact values, and the messages.
#include "models/units.h"

#include <string>

#include <gtest/gtest.h>

namespace moesim::models {
namespace {

template <typename Fn>
std::string unit_error(Fn parse, std::string_view text) {
  try {
    parse(text);
  } catch (const UnitError& e) {
    return e.what();
  }
  return "<no error>";
}

const std::string kDurationUnits = "ns, us, ms, s, min, h";
const std::string kBandwidthUnits =
    "bps, Kbps, Mbps, Gbps, Tbps, b/s, Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, TB/s, Bps, KBps, MBps, "
    "GBps, TBps, KiB/s, MiB/s, GiB/s, TiB/s; b = bits, B = bytes";

TEST(DurationUnits, ConvertsToNanoseconds) {
  EXPECT_EQ(parse_duration_ns("100ns"), 100.0);
  EXPECT_EQ(parse_duration_ns("2us"), 2e3);
  EXPECT_EQ(parse_duration_ns("1.5ms"), 1.5e6);
  EXPECT_EQ(parse_duration_ns("50ms"), 50e6);
  EXPECT_EQ(parse_duration_ns("2s"), 2e9);
  EXPECT_EQ(parse_duration_ns("1min"), 60e9);
  EXPECT_EQ(parse_duration_ns("1h"), 3600e9);
  EXPECT_EQ(parse_duration_ns("0s"), 0.0);
  EXPECT_EQ(parse_duration_ns(" 3 us "), 3e3);
  EXPECT_EQ(parse_duration_ns(".5s"), 0.5e9);
  EXPECT_EQ(parse_duration_ns("1e3ns"), 1e3);
}

TEST(DurationUnits, RequiresAUnit) {
  EXPECT_EQ(unit_error(parse_duration_ns, "2"), "expected a duration with a unit (" + kDurationUnits + "), got '2'");
}

TEST(DurationUnits, RejectsBadText) {
  const std::string expected = "expected a duration with a unit (" + kDurationUnits + "), got ";
  EXPECT_EQ(unit_error(parse_duration_ns, ""), expected + "an empty value");
  EXPECT_EQ(unit_error(parse_duration_ns, "   "), expected + "an empty value");
  EXPECT_EQ(unit_error(parse_duration_ns, "2 weeks"), expected + "'2 weeks'");
  EXPECT_EQ(unit_error(parse_duration_ns, "2usx"), expected + "'2usx'");
  EXPECT_EQ(unit_error(parse_duration_ns, "2us 3"), expected + "'2us 3'");
  EXPECT_EQ(unit_error(parse_duration_ns, "ms"), expected + "'ms'");
  EXPECT_EQ(unit_error(parse_duration_ns, "nan"), expected + "'nan'");
  EXPECT_EQ(unit_error(parse_duration_ns, "infs"), expected + "'infs'");
  EXPECT_EQ(unit_error(parse_duration_ns, "+2us"), expected + "'+2us'");
  EXPECT_EQ(unit_error(parse_duration_ns, "2US"), expected + "'2US'");
}

TEST(DurationUnits, RejectsNegativeAndOverflow) {
  EXPECT_EQ(unit_error(parse_duration_ns, "-2us"), "expected a non-negative duration, got '-2us'");
  EXPECT_EQ(unit_error(parse_duration_ns, "1e999s"), "duration '1e999s' is out of range");
  EXPECT_EQ(unit_error(parse_duration_ns, "1e300h"), "duration '1e300h' is out of range");
}

TEST(BandwidthUnits, BitsAreDecimalAndDividedByEight) {
  EXPECT_EQ(parse_bandwidth_bytes_per_s("400Gbps"), 50e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("400Gb/s"), 50e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("100Mbps"), 12.5e6);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("1.6Tbps"), 200e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("800kbps"), 100e3);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("8bps"), 1.0);
}

TEST(BandwidthUnits, Bytes) {
  EXPECT_EQ(parse_bandwidth_bytes_per_s("50GB/s"), 50e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("50GBps"), 50e9);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("1.5TB/s"), 1.5e12);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("200MB/s"), 200e6);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("100GiB/s"), 100.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("3 kB/s"), 3e3);
}

TEST(BandwidthUnits, RejectsBadText) {
  const std::string expected = "expected a bandwidth with a unit (" + kBandwidthUnits + "), got ";
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "400"), expected + "'400'");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "400gbps"), expected + "'400gbps'");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "400Gbpsx"), expected + "'400Gbpsx'");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "Gbps"), expected + "'Gbps'");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, ""), expected + "an empty value");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "-1GB/s"), "expected a non-negative bandwidth, got '-1GB/s'");
  EXPECT_EQ(unit_error(parse_bandwidth_bytes_per_s, "inf GB/s"), expected + "'inf GB/s'");
}

TEST(ByteUnits, DecimalAndBinary) {
  EXPECT_EQ(parse_bytes("80GiB"), 80.0 * (1 << 30));
  EXPECT_EQ(parse_bytes("80GB"), 80e9);
  EXPECT_EQ(parse_bytes("512MiB"), 512.0 * (1 << 20));
  EXPECT_EQ(parse_bytes("1TiB"), 1024.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_bytes("4096B"), 4096.0);
  EXPECT_EQ(parse_bytes("16KiB"), 16384.0);
  EXPECT_EQ(parse_bytes("2kB"), 2000.0);
}

TEST(ByteUnits, RejectsBadText) {
  const std::string expected = "expected a size with a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), got ";
  EXPECT_EQ(unit_error(parse_bytes, "4096"), expected + "'4096'");
  EXPECT_EQ(unit_error(parse_bytes, "80Gib"), expected + "'80Gib'");
  EXPECT_EQ(unit_error(parse_bytes, "80GiB!"), expected + "'80GiB!'");
  EXPECT_EQ(unit_error(parse_bytes, "-1B"), "expected a non-negative size, got '-1B'");
}

TEST(RateUnits, PerSecondByDefault) {
  EXPECT_EQ(parse_rate_per_s("400/s"), 400.0);
  EXPECT_EQ(parse_rate_per_s("1.5/s"), 1.5);
  EXPECT_EQ(parse_rate_per_s("2/ms"), 2000.0);
  EXPECT_EQ(parse_rate_per_s("3/us"), 3e6);
  EXPECT_EQ(parse_rate_per_s("120/min"), 2.0);
  EXPECT_EQ(parse_rate_per_s("7200/h"), 2.0);
  EXPECT_EQ(parse_rate_per_s("250"), 250.0);
  EXPECT_EQ(parse_rate_per_s("0.5"), 0.5);
}

TEST(RateUnits, RejectsBadText) {
  const std::string expected = "expected a rate (a number per second, or with a unit: /s, /ms, /us, /min, /h), got ";
  EXPECT_EQ(unit_error(parse_rate_per_s, "400/d"), expected + "'400/d'");
  EXPECT_EQ(unit_error(parse_rate_per_s, "fast"), expected + "'fast'");
  EXPECT_EQ(unit_error(parse_rate_per_s, "4 00/s"), expected + "'4 00/s'");
  EXPECT_EQ(unit_error(parse_rate_per_s, ""), expected + "an empty value");
  EXPECT_EQ(unit_error(parse_rate_per_s, "nan"), expected + "'nan'");
  EXPECT_EQ(unit_error(parse_rate_per_s, "-3/s"), "expected a non-negative rate, got '-3/s'");
}

TEST(DecimalPrefixes, AreExactToTheText) {
  EXPECT_EQ(parse_bandwidth_bytes_per_s("3.35TB/s"), 3.35e12);
  EXPECT_EQ(parse_flops_per_s("989TFLOPS"), 989e12);
  EXPECT_EQ(parse_flops_per_s("2.25PFLOPS"), 2.25e15);
  EXPECT_EQ(parse_flops_per_s("1504TOPS"), 1504e12);
  EXPECT_EQ(parse_bytes("186111111111.11111B"), 13.4e12 / 72);
  EXPECT_EQ(parse_bytes("1.5e3 GB"), 1.5e12);
  EXPECT_EQ(parse_duration_ns("0.1min"), 6e9);
  EXPECT_EQ(parse_bytes("81559MiB"), 81559.0 * 1024 * 1024);
  EXPECT_EQ(parse_bandwidth_bytes_per_s("0 B/s"), 0.0);
}

TEST(FlopsUnits, AllSpellings) {
  EXPECT_EQ(parse_flops_per_s("989TFLOPS"), 989e12);
  EXPECT_EQ(parse_flops_per_s("989 TFLOP/s"), 989e12);
  EXPECT_EQ(parse_flops_per_s("5kFLOPS"), 5e3);
  EXPECT_EQ(parse_flops_per_s("2POPS"), 2e15);
  EXPECT_EQ(unit_error(parse_flops_per_s, "989 teraflops"),
            "expected a compute rate with a unit (FLOPS, KFLOPS, MFLOPS, GFLOPS, TFLOPS, PFLOPS, FLOP/s, KFLOP/s, "
            "MFLOP/s, GFLOP/s, TFLOP/s, PFLOP/s, OPS, GOPS, TOPS, POPS), got '989 teraflops'");
  EXPECT_EQ(unit_error(parse_flops_per_s, "-1TFLOPS"), "expected a non-negative compute rate, got '-1TFLOPS'");
}

TEST(PowerUnits, WattsEitherCaseOfKilo) {
  EXPECT_EQ(parse_power_w("700W"), 700.0);
  EXPECT_EQ(parse_power_w("1.2kW"), 1200.0);
  EXPECT_EQ(parse_power_w("1.2KW"), 1200.0);
  EXPECT_EQ(parse_power_w("2MW"), 2e6);
  EXPECT_EQ(unit_error(parse_power_w, "700"), "expected a power with a unit (W, kW, MW), got '700'");
}

TEST(ByteUnits, OutOfRange) {
  EXPECT_EQ(unit_error(parse_bytes, "1e400GB"), "size '1e400GB' is out of range");
  EXPECT_EQ(unit_error(parse_bytes, "1e300TiB"), "size '1e300TiB' is out of range");
}

}  // namespace
}  // namespace moesim::models
