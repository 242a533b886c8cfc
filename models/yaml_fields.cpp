#include "models/yaml_fields.h"

#include "models/yaml_documents.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "models/did_you_mean.h"
#include "models/units.h"

namespace moesim::models {
namespace {

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return quoted_excerpt(node.Scalar());
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "an empty value";
  }
}

bool is_empty(const YAML::Node& node) { return !node.IsDefined() || node.IsNull(); }

const std::string& scalar_or_fail(const YamlField& f, std::string_view expected) {
  if (!f.node.IsScalar()) f.fail("expected " + std::string(expected) + ", got " + describe(f.node));
  return f.node.Scalar();
}

std::string join_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : std::string(parent) + "." + std::string(key);
}

template <typename Parse>
double with_unit(const YamlField& f, std::string_view noun, Parse parse) {
  const std::string& text = scalar_or_fail(f, noun);
  try {
    return parse(text);
  } catch (const UnitError& e) {
    f.fail(e.what());
  }
}

}  // namespace

void fail_at(std::string_view source, const YAML::Mark& mark, std::string_view path, std::string_view message) {
  std::string line(source);
  if (mark.line >= 0) line += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(std::max(mark.column, 0) + 1);
  line += ": ";
  if (!path.empty()) line += std::string(path) + ": ";
  line += message;
  throw YamlFieldError(line);
}

void YamlField::fail(std::string_view message) const { fail_at(source, mark, path, message); }

YamlField parse_yaml_document(std::string_view text, std::string source) {
  YamlDocuments docs;
  try {
    docs = load_yaml_documents(std::string(text));
  } catch (const YAML::Exception& e) {
    fail_at(source, e.mark, "", "YAML syntax error: " + e.msg);
  }
  if (docs.count > 1)
    fail_at(source, docs.second, "", "expected one YAML document, found " + std::to_string(docs.count));
  YAML::Mark start;  // line 0, column 0
  if (docs.count == 0) return {YAML::Node(), start, "", std::move(source)};
  const YAML::Mark mark = docs.first.Mark().line >= 0 ? docs.first.Mark() : start;
  return {docs.first, mark, "", std::move(source)};
}

YamlMap::YamlMap(const YamlField& field, std::vector<std::string_view> keys) : field_(field), keys_(std::move(keys)) {
  if (is_empty(field_.node)) return;
  if (!field_.node.IsMap()) field_.fail("expected a map, got " + describe(field_.node));
  std::vector<std::pair<std::string, YAML::Mark>> seen;
  for (const auto& kv : field_.node) {
    const YAML::Mark key_mark = kv.first.Mark();
    if (!kv.first.IsScalar())
      fail_at(field_.source, key_mark, field_.path, "expected a string key, got " + describe(kv.first));
    const std::string& key = kv.first.Scalar();
    const std::string path = join_path(field_.path, key);
    for (const auto& [name, first] : seen)
      if (name == key)
        fail_at(field_.source, key_mark, path,
                "duplicate key '" + key + "' (first at line " + std::to_string(first.line + 1) + ", column " +
                    std::to_string(first.column + 1) + ")");
    seen.emplace_back(key, key_mark);
    if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) continue;
    std::string msg = "unknown key '" + key + "'";
    if (const auto match = closest_match(key, keys_))
      msg += "; did you mean '" + std::string(*match) + "'?";
    else
      msg += " (valid keys: " + join_names(keys_) + ")";
    fail_at(field_.source, key_mark, path, msg);
  }
}

std::optional<YamlField> YamlMap::get(std::string_view key) const {
  if (is_empty(field_.node)) return std::nullopt;
  for (const auto& kv : field_.node) {
    if (kv.first.Scalar() != key) continue;
    // yaml-cpp places an empty value where the next token starts; its key is a better spot.
    const YAML::Mark mark = is_empty(kv.second) ? kv.first.Mark() : kv.second.Mark();
    return YamlField{kv.second, mark, join_path(field_.path, key), field_.source};
  }
  return std::nullopt;
}

YamlField YamlMap::require(std::string_view key) const {
  if (auto f = get(key)) return *f;
  field_.fail("missing required key '" + std::string(key) + "'");
}

YamlMap YamlMap::map(std::string_view key, std::vector<std::string_view> keys, bool required) const {
  if (const auto f = required ? std::optional<YamlField>(require(key)) : get(key)) return YamlMap(*f, std::move(keys));
  return YamlMap(YamlField{YAML::Node(), field_.mark, join_path(field_.path, key), field_.source}, std::move(keys));
}

std::string as_string(const YamlField& f) {
  const std::string& text = scalar_or_fail(f, "a string");
  if (text.empty()) f.fail("expected a non-empty string");
  return text;
}

std::string as_choice(const YamlField& f, std::string_view what, const std::vector<std::string_view>& valid) {
  std::string name = as_string(f);
  if (std::find(valid.begin(), valid.end(), name) == valid.end()) f.fail(unknown_name_message(what, name, valid));
  return name;
}

std::int64_t as_int64(const YamlField& f, std::int64_t min, std::int64_t max) {
  const std::string& text = scalar_or_fail(f, "an integer");
  std::string_view t = text;
  if (t.starts_with('+')) t.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  const bool whole = !t.empty() && end == t.data() + t.size();
  if (!whole || (ec != std::errc() && ec != std::errc::result_out_of_range))
    f.fail("expected an integer, got '" + text + "'");
  if (ec == std::errc() && value >= min && value <= max) return value;
  if (ec == std::errc() && value < min && (max == INT64_MAX || max == INT_MAX))
    f.fail("expected an integer >= " + std::to_string(min) + ", got " + text);
  f.fail("expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + text);
}

int as_int(const YamlField& f, int min, int max) { return static_cast<int>(as_int64(f, min, max)); }

double as_number(const YamlField& f) {
  const std::string& text = scalar_or_fail(f, "a number");
  std::string_view t = text;
  if (t.starts_with('+')) t.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value))
    f.fail("expected a number, got '" + text + "'");
  return value;
}

bool as_bool(const YamlField& f) {
  const std::string& text = scalar_or_fail(f, "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  f.fail("expected true or false, got '" + text + "'");
}

double as_duration_ns(const YamlField& f) { return with_unit(f, "a duration", parse_duration_ns); }
double as_bytes(const YamlField& f) { return with_unit(f, "a size", parse_bytes); }
double as_bandwidth_bytes_per_s(const YamlField& f) { return with_unit(f, "a bandwidth", parse_bandwidth_bytes_per_s); }
double as_flops_per_s(const YamlField& f) { return with_unit(f, "a compute rate", parse_flops_per_s); }
double as_power_w(const YamlField& f) { return with_unit(f, "a power", parse_power_w); }

}  // namespace moesim::models
