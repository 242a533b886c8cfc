// The typed YAML reader of every input file: validated reads from a YamlNode tree
// (models/yaml_tree.h), each error naming the dotted key path and the position of the offending
// key or value (docs/design.md §3, §5).
//
// MapReader checks a map's keys against the schema up front (unknown key -> did-you-mean or the
// list of valid keys) and hands out Fields; the as_* functions convert a Field (units through
// models/units.h) or throw YamlError, e.g. "scn.yaml:7:12: cluster.nodes: expected an integer >= 1,
// got 0".
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/yaml_tree.h"

namespace moesim::models {

// One key of a map with its value.
struct Field {
  const YamlNode* node;
  const SourceLoc* key_loc;
  std::string path;  // dotted, e.g. "deployment.colocated.ranks"

  [[noreturn]] void fail(std::string_view message) const;         // at the value
  [[noreturn]] void fail_at_key(std::string_view message) const;  // at the key
};

class MapReader {
 public:
  // `node` must be a map or an empty value (read as an empty map), and every key one of `keys`.
  MapReader(const YamlNode& node, std::string path, std::vector<std::string_view> keys);

  const std::string& path() const { return path_; }
  const SourceLoc& loc() const { return loc_; }
  // The keys the map gives, in document order.
  std::vector<std::string_view> given() const;

  bool has(std::string_view key) const { return get(key).has_value(); }

  std::optional<Field> get(std::string_view key) const;
  // Throws "<map path>: missing required key '<key>'" at the map's position.
  Field require(std::string_view key) const;
  // The one of `keys` the map gives: with two given, "give either 'a' or 'b', not both" (three or
  // more: "give one of 'a', 'b' and 'c', not two"); with none, `none` followed by "'a' or 'b'".
  Field exactly_one(const std::vector<std::string_view>& keys, std::string_view none) const;
  // The sub-map under `key`; an absent optional one reads as an empty map at this map's position.
  MapReader map(std::string_view key, std::vector<std::string_view> keys, bool required = false) const;
  // Throws "<map path>: <message>" at the map's position.
  [[noreturn]] void fail(std::string_view message) const;

 private:
  MapReader(const SourceLoc& loc, std::string path, std::vector<std::string_view> keys);

  const std::vector<YamlEntry>* entries_ = nullptr;  // null: empty map
  SourceLoc loc_;
  std::string path_;
  std::vector<std::string_view> keys_;
};

std::string as_string(const Field& f);  // a non-empty scalar
// A name from `valid`; otherwise "unknown <what> 'x'; did you mean 'y'? (valid: ...)".
std::string as_choice(const Field& f, std::string_view what, const std::vector<std::string_view>& valid);
std::int64_t as_int64(const Field& f, std::int64_t min, std::int64_t max = INT64_MAX);
int as_int(const Field& f, int min, int max = INT_MAX);
std::uint64_t as_uint64(const Field& f);
double as_number(const Field& f);    // finite
double as_fraction(const Field& f);  // in (0, 1]
bool as_bool(const Field& f);        // true/false (also yes/no, on/off)
double as_duration_ns(const Field& f);
double as_bandwidth_bytes_per_s(const Field& f);
double as_rate_per_s(const Field& f);
double as_bytes(const Field& f);        // a size: 256GB, 2TiB, ...
double as_flops_per_s(const Field& f);  // 989TFLOPS
double as_power_w(const Field& f);      // 700W

}  // namespace moesim::models
