#include "models/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "models/did_you_mean.h"
#include "models/units.h"

namespace moesim::models {
namespace {

bool is_kind(const Field& f, YamlNode::Kind k) { return f.node->kind == k; }

const std::string& scalar_or_fail(const Field& f, std::string_view expected) {
  if (!is_kind(f, YamlNode::Kind::kScalar)) f.fail("expected " + std::string(expected) + ", got " + describe(*f.node));
  return f.node->scalar;
}

// Parses the whole of `text` as an integer of type T; nullopt if it is not one, and sets
// `overflow` when it is one that does not fit.
template <typename T>
std::optional<T> parse_integer(std::string_view text, bool& overflow) {
  overflow = false;
  if (text.starts_with('+'))
    text.remove_prefix(1);
  else if (text.starts_with('-')) {
    if (text.size() < 2 || !std::isdigit(static_cast<unsigned char>(text[1]))) return std::nullopt;
  }
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-'))
    return std::nullopt;
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    overflow = true;
    return std::nullopt;
  }
  if (ec != std::errc()) return std::nullopt;
  return value;
}

template <typename Fn>
double with_unit(const Field& f, std::string_view noun, Fn parse) {
  const std::string& text = scalar_or_fail(f, noun);
  try {
    return parse(text);
  } catch (const UnitError& e) {
    f.fail(e.what());
  }
}

}  // namespace

void Field::fail(std::string_view message) const { fail_at(node->loc, path, message); }
void Field::fail_at_key(std::string_view message) const { fail_at(*key_loc, path, message); }

MapReader::MapReader(const SourceLoc& loc, std::string path, std::vector<std::string_view> keys)
    : loc_(loc), path_(std::move(path)), keys_(std::move(keys)) {}

MapReader::MapReader(const YamlNode& node, std::string path, std::vector<std::string_view> keys)
    : MapReader(node.loc, std::move(path), std::move(keys)) {
  if (node.kind == YamlNode::Kind::kNull) return;
  if (node.kind != YamlNode::Kind::kMap) fail_at(node.loc, path_, "expected a map, got " + describe(node));
  entries_ = &node.entries;
  for (const YamlEntry& e : node.entries) {
    if (std::find(keys_.begin(), keys_.end(), e.key) != keys_.end()) continue;
    std::string msg = "unknown key '" + e.key + "'";
    if (const auto match = closest_match(e.key, keys_))
      msg += "; did you mean '" + std::string(*match) + "'?";
    else
      msg += " (valid keys: " + join_names(keys_) + ")";
    fail_at(e.key_loc, join_path(path_, e.key), msg);
  }
}

std::optional<Field> MapReader::get(std::string_view key) const {
  if (entries_ == nullptr) return std::nullopt;
  for (const YamlEntry& e : *entries_)
    if (e.key == key) return Field{&e.value, &e.key_loc, join_path(path_, key)};
  return std::nullopt;
}

std::vector<std::string_view> MapReader::given() const {
  std::vector<std::string_view> keys;
  if (entries_ != nullptr)
    for (const YamlEntry& e : *entries_) keys.push_back(e.key);
  return keys;
}

void MapReader::fail(std::string_view message) const { fail_at(loc_, path_, message); }

Field MapReader::require(std::string_view key) const {
  if (auto f = get(key)) return *f;
  fail_at(loc_, path_, "missing required key '" + std::string(key) + "'");
}

Field MapReader::exactly_one(const std::vector<std::string_view>& keys, std::string_view none) const {
  // 'a' or 'b' / 'a', 'b' or 'c' (`last` joins the final two).
  const auto list = [&](std::string_view last) {
    std::string text;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      text += i == 0 ? "" : (i + 1 == keys.size() ? last : std::string_view(", "));
      text.append("'").append(keys[i]).append("'");
    }
    return text;
  };
  std::optional<Field> found;
  for (const std::string_view key : keys) {
    const auto f = get(key);
    if (!f) continue;
    if (found)
      fail_at(loc_, path_,
              keys.size() == 2 ? "give either " + list(" or ") + ", not both"
                               : "give one of " + list(" and ") + ", not two");
    found = f;
  }
  if (!found) fail_at(loc_, path_, std::string(none) + list(" or "));
  return *found;
}

MapReader MapReader::map(std::string_view key, std::vector<std::string_view> keys, bool required) const {
  if (const auto f = required ? std::optional<Field>(require(key)) : get(key))
    return MapReader(*f->node, f->path, std::move(keys));
  return MapReader(loc_, join_path(path_, key), std::move(keys));
}

std::string as_string(const Field& f) {
  const std::string& text = scalar_or_fail(f, "a string");
  if (text.empty()) f.fail("expected a non-empty string");
  return text;
}

std::string as_choice(const Field& f, std::string_view what, const std::vector<std::string_view>& valid) {
  std::string name = as_string(f);
  if (std::find(valid.begin(), valid.end(), name) == valid.end()) f.fail(unknown_name_message(what, name, valid));
  return name;
}

std::int64_t as_int64(const Field& f, std::int64_t min, std::int64_t max) {
  const std::string& text = scalar_or_fail(f, "an integer");
  bool overflow = false;
  const auto value = parse_integer<std::int64_t>(text, overflow);
  if (!value && !overflow) f.fail("expected an integer, got '" + text + "'");
  if (value && *value >= min && *value <= max) return *value;
  const bool below = value && *value < min;
  const bool unbounded = max == INT64_MAX || max == INT_MAX;
  if (below && unbounded) f.fail("expected an integer >= " + std::to_string(min) + ", got " + text);
  f.fail("expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + text);
}

int as_int(const Field& f, int min, int max) { return static_cast<int>(as_int64(f, min, max)); }

std::uint64_t as_uint64(const Field& f) {
  const std::string& text = scalar_or_fail(f, "an unsigned integer");
  bool overflow = false;
  const auto value = text.starts_with('-') ? std::nullopt : parse_integer<std::uint64_t>(text, overflow);
  if (overflow) f.fail("expected an integer in [0, " + std::to_string(UINT64_MAX) + "], got " + text);
  if (!value) f.fail("expected an unsigned integer, got '" + text + "'");
  return *value;
}

double as_number(const Field& f) {
  const std::string& text = scalar_or_fail(f, "a number");
  std::string_view t = text;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  double value = 0;
  const bool plain =
      !t.empty() && (std::isdigit(static_cast<unsigned char>(t.front())) || t.front() == '.' || t.front() == '-');
  const auto [end, ec] = plain ? std::from_chars(t.data(), t.data() + t.size(), value)
                               : std::from_chars_result{t.data(), std::errc::invalid_argument};
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value))
    f.fail("expected a number, got '" + text + "'");
  return value;
}

double as_fraction(const Field& f) {
  const double value = as_number(f);
  if (!(value > 0 && value <= 1)) f.fail("expected a number in (0, 1], got " + f.node->scalar);
  return value;
}

bool as_bool(const Field& f) {
  const std::string& text = scalar_or_fail(f, "true or false");
  for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
    if (text == t) return true;
  for (std::string_view t : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
    if (text == t) return false;
  f.fail("expected true or false, got '" + text + "'");
}

double as_duration_ns(const Field& f) { return with_unit(f, "a duration", parse_duration_ns); }
double as_bandwidth_bytes_per_s(const Field& f) { return with_unit(f, "a bandwidth", parse_bandwidth_bytes_per_s); }
double as_rate_per_s(const Field& f) { return with_unit(f, "a rate", parse_rate_per_s); }
double as_bytes(const Field& f) { return with_unit(f, "a size", parse_bytes); }
double as_flops_per_s(const Field& f) { return with_unit(f, "a compute rate", parse_flops_per_s); }
double as_power_w(const Field& f) { return with_unit(f, "a power", parse_power_w); }

}  // namespace moesim::models
