// Strict, typed reads from yaml-cpp nodes for the model and hardware readers (docs/design.md §5).
//
// A YamlMap checks its keys against a schema up front: an unknown key fails with a did-you-mean
// hint (or the list of valid keys), a repeated key fails naming the first one. Fields convert
// with the as_* functions. Every failure throws YamlFieldError whose what() is one line,
// "<source>:<line>:<column>: <dotted.key>: <message>" with 1-based line and column (yaml-cpp's
// marks are 0-based); boundary readers rethrow it as their own error type.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace moesim::models {

class YamlFieldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One value with where it came from.
struct YamlField {
  YAML::Node node;
  YAML::Mark mark;  // the value's position; the key's when the value is empty
  std::string path;
  std::string source;

  [[noreturn]] void fail(std::string_view message) const;
};

// "<source>:<line>:<col>: <path>: <message>" (no "<path>: " when the path is empty).
[[noreturn]] void fail_at(std::string_view source, const YAML::Mark& mark, std::string_view path,
                          std::string_view message);

// Parses one YAML document; throws "<source>:<line>:<col>: YAML syntax error: ..." or, for more
// than one document, "expected one YAML document".
YamlField parse_yaml_document(std::string_view text, std::string source);

class YamlMap {
 public:
  // `field` must hold a map (an empty value reads as an empty map) whose keys are all in `keys`.
  YamlMap(const YamlField& field, std::vector<std::string_view> keys);

  const YamlField& field() const { return field_; }
  bool has(std::string_view key) const { return get(key).has_value(); }
  std::optional<YamlField> get(std::string_view key) const;
  // Throws "<path>: missing required key '<key>'" at the map's position.
  YamlField require(std::string_view key) const;
  // The sub-map under `key`; an absent one reads as an empty map at this map's position.
  YamlMap map(std::string_view key, std::vector<std::string_view> keys, bool required = false) const;
  [[noreturn]] void fail(std::string_view message) const { field_.fail(message); }

 private:
  YamlField field_;
  std::vector<std::string_view> keys_;
};

std::string as_string(const YamlField& f);  // a non-empty scalar
// A name from `valid`; otherwise "unknown <what> 'x'; did you mean 'y'? (valid: ...)".
std::string as_choice(const YamlField& f, std::string_view what, const std::vector<std::string_view>& valid);
std::int64_t as_int64(const YamlField& f, std::int64_t min, std::int64_t max = INT64_MAX);
int as_int(const YamlField& f, int min, int max = INT_MAX);
double as_number(const YamlField& f);       // finite
bool as_bool(const YamlField& f);           // true/false
double as_duration_ns(const YamlField& f);  // "4.5us" (models/units.h)
double as_bytes(const YamlField& f);        // "80GiB"
double as_bandwidth_bytes_per_s(const YamlField& f);
double as_flops_per_s(const YamlField& f);
double as_power_w(const YamlField& f);  // "700W"

}  // namespace moesim::models
