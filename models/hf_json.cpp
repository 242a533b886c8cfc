#include "models/hf_json.h"

#include <algorithm>
#include <limits>

#include "models/model_error.h"

namespace moesim::models {
namespace {

std::string describe(const nlohmann::json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// nlohmann's parse_error::byte is the 1-based offset of the last character read.
std::string position(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < end; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return std::to_string(line) + ":" + std::to_string(end - line_start + 1);
}

}  // namespace

nlohmann::json parse_hf_json(std::string_view text, const std::string& source) {
  try {
    nlohmann::json j = nlohmann::json::parse(text.begin(), text.end());
    if (!j.is_object()) throw ModelError(source + ": expected a JSON object at the top level, got " + describe(j));
    return j;
  } catch (const nlohmann::json::parse_error& e) {
    // what() = "[json.exception.parse_error.101] parse error at line L, column C: <detail>".
    std::string detail = e.what();
    if (const auto colon = detail.find(": "); colon != std::string::npos) detail = detail.substr(colon + 2);
    throw ModelError(source + ":" + position(text, e.byte) + ": JSON syntax error: " + detail);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double: "... number overflow parsing '<literal>'". nlohmann gives
    // no position, so point at the literal's first occurrence.
    std::string detail = e.what();
    if (const auto space = detail.find("] "); space != std::string::npos) detail = detail.substr(space + 2);
    std::size_t byte = 0;
    const auto open = detail.find('\'');
    const auto close = detail.rfind('\'');
    if (open != std::string::npos && close > open)
      if (const auto at = text.find(detail.substr(open + 1, close - open - 1)); at != std::string_view::npos)
        byte = at + 1;
    throw ModelError(source + ":" + position(text, byte) + ": JSON syntax error: " + detail);
  }
}

HfJson::HfJson(const nlohmann::json& object, std::string source, std::string prefix)
    : object_(&object), source_(std::move(source)), prefix_(std::move(prefix)) {}

void HfJson::fail(std::string_view key, std::string_view message) const {
  throw ModelError(source_ + ": " + prefix_ + std::string(key) + ": " + std::string(message));
}

const nlohmann::json* HfJson::find(std::string_view key) const {
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

bool HfJson::has(std::string_view key) const { return find(key) != nullptr; }

int HfJson::get_int(std::string_view key, int fallback, int min) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_number_integer()) fail(key, "expected an integer, got " + describe(*v));
  const auto value = v->get<std::int64_t>();
  if (value < min || value > std::numeric_limits<int>::max())
    fail(key, "expected an integer >= " + std::to_string(min) + ", got " + describe(*v));
  return static_cast<int>(value);
}

int HfJson::require_int(std::string_view key, int min) const {
  if (!has(key)) fail(key, "missing required key");
  return get_int(key, 0, min);
}

double HfJson::get_number(std::string_view key, double fallback) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) fail(key, "expected a number, got " + describe(*v));
  return v->get<double>();
}

bool HfJson::get_bool(std::string_view key, bool fallback) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + describe(*v));
  return v->get<bool>();
}

std::string HfJson::get_string(std::string_view key, std::string fallback) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) fail(key, "expected a string, got " + describe(*v));
  return v->get<std::string>();
}

std::vector<int> HfJson::get_int_list(std::string_view key) const {
  const nlohmann::json* v = find(key);
  std::vector<int> out;
  if (v == nullptr) return out;
  if (!v->is_array()) fail(key, "expected a list of integers, got " + describe(*v));
  for (const auto& item : *v) {
    if (!item.is_number_integer() || item.get<std::int64_t>() < std::numeric_limits<int>::min() ||
        item.get<std::int64_t>() > std::numeric_limits<int>::max() ||
        (item.is_number_unsigned() && item.get<std::uint64_t>() > std::numeric_limits<int>::max()))
      fail(key, "expected a list of integers, got " + describe(*v));
    out.push_back(item.get<int>());
  }
  return out;
}

std::vector<std::string> HfJson::get_string_list(std::string_view key) const {
  const nlohmann::json* v = find(key);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) fail(key, "expected a list of strings, got " + describe(*v));
  for (const auto& item : *v) {
    if (!item.is_string()) fail(key, "expected a list of strings, got " + describe(*v));
    out.push_back(item.get<std::string>());
  }
  return out;
}

HfJson HfJson::object(std::string_view key) const {
  const nlohmann::json* v = find(key);
  if (v == nullptr) fail(key, "missing required key");
  if (!v->is_object()) fail(key, "expected an object, got " + describe(*v));
  return HfJson(*v, source_, prefix_ + std::string(key) + ".");
}

}  // namespace moesim::models
