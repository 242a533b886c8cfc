// The one YAML reader (models/yaml_tree.h, models/yaml_reader.h): positions, did-you-mean,
// limits and units, each error one line "<file>:<line>:<column>: <key>: <message>".
#include "models/yaml_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace moesim::models {
namespace {

// The message of running `read` on the map parsed from `text` as "f.yaml", or "<no error>".
template <typename Read>
std::string error_of(const std::string& text, Read read) {
  try {
    const YamlNode root = parse_yaml(text, "f.yaml", true);
    read(MapReader(root, "", {"link", "count", "size", "rate", "peak", "power", "wait", "on", "a", "b"}));
  } catch (const YamlError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(YamlReader, UnknownKeysGetADidYouMeanAtTheKey) {
  EXPECT_EQ(error_of("count: 1\nlnik: 2\n", [](const MapReader&) {}),
            "f.yaml:2:1: lnik: unknown key 'lnik'; did you mean 'link'?");
  const YamlNode nested = parse_yaml("link: {bandwdith: 1GB/s}\n", "f.yaml", true);
  try {
    MapReader(nested, "", {"link"}).map("link", {"bandwidth", "latency"});
    FAIL();
  } catch (const YamlError& e) {
    EXPECT_STREQ(e.what(), "f.yaml:1:8: link.bandwdith: unknown key 'bandwdith'; did you mean 'bandwidth'?");
  }
}

TEST(YamlReader, DuplicateKeysAndSyntaxErrorsNameTheirPositions) {
  EXPECT_EQ(error_of("count: 1\ncount: 2\n", [](const MapReader&) {}),
            "f.yaml:2:1: count: duplicate key 'count' (first at line 1, column 1)");
  EXPECT_EQ(error_of("count: [1\n", [](const MapReader&) {}).rfind("f.yaml:", 0), 0u);
  EXPECT_NE(error_of("count: [1\n", [](const MapReader&) {}).find("YAML syntax error"), std::string::npos);
}

TEST(YamlReader, LimitsAndChoices) {
  EXPECT_EQ(error_of("count: 0\n", [](const MapReader& m) { as_int(m.require("count"), 1); }),
            "f.yaml:1:8: count: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("count: 9\n", [](const MapReader& m) { as_int(m.require("count"), 1, 8); }),
            "f.yaml:1:8: count: expected an integer in [1, 8], got 9");
  EXPECT_EQ(error_of("a: 1\nb: 2\n",
                     [](const MapReader& m) {
                       m.exactly_one({"a", "b"}, "give ");
                     }),
            "f.yaml:1:1: give either 'a' or 'b', not both");
  EXPECT_EQ(error_of("on: maybe\n", [](const MapReader& m) { as_bool(m.require("on")); }),
            "f.yaml:1:5: on: expected true or false, got 'maybe'");
  EXPECT_EQ(error_of("count: 1\n", [](const MapReader& m) { m.require("size"); }),
            "f.yaml:1:1: missing required key 'size'");
}

TEST(YamlReader, UnitsThroughTheOneParser) {
  const YamlNode root =
      parse_yaml("link: 400Gb/s\nsize: 80GiB\nwait: 2us\nrate: 400/s\npeak: 989TFLOPS\npower: 700W\n", "f.yaml", true);
  const MapReader m(root, "", {"link", "size", "wait", "rate", "peak", "power"});
  EXPECT_EQ(as_bandwidth_bytes_per_s(m.require("link")), 50e9);
  EXPECT_EQ(as_bytes(m.require("size")), 80.0 * (1ULL << 30));
  EXPECT_EQ(as_duration_ns(m.require("wait")), 2e3);
  EXPECT_EQ(as_rate_per_s(m.require("rate")), 400.0);
  EXPECT_EQ(as_flops_per_s(m.require("peak")), 989e12);
  EXPECT_EQ(as_power_w(m.require("power")), 700.0);
  EXPECT_EQ(error_of("power: 700\n", [](const MapReader& r) { as_power_w(r.require("power")); }),
            "f.yaml:1:8: power: expected a power with a unit (W, kW, MW), got '700'");
  EXPECT_EQ(error_of("link: {a: 1}\n", [](const MapReader& r) { as_bandwidth_bytes_per_s(r.require("link")); }),
            "f.yaml:1:7: link: expected a bandwidth, got a map");
}

}  // namespace
}  // namespace moesim::models
