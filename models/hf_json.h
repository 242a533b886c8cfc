// Typed reads from a Hugging Face config.json (internal to models/: the HF importer's helper).
//
// A JSON null reads as an absent key (configs write "q_lora_rank": null, "sliding_window": null).
// Errors throw ModelError "<source>: <prefix><key>: <message>"; JSON syntax errors carry the line
// and column: "<source>:<line>:<col>: JSON syntax error: <what nlohmann reports>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace moesim::models {

nlohmann::json parse_hf_json(std::string_view text, const std::string& source);

class HfJson {
 public:
  // `prefix` names where `object` sits ("" or "text_config.") for messages.
  HfJson(const nlohmann::json& object, std::string source, std::string prefix = "");

  const std::string& source() const { return source_; }
  bool has(std::string_view key) const;
  int require_int(std::string_view key, int min = 1) const;
  int get_int(std::string_view key, int fallback, int min = 0) const;
  double get_number(std::string_view key, double fallback) const;  // any finite JSON number
  bool get_bool(std::string_view key, bool fallback) const;
  std::string get_string(std::string_view key, std::string fallback) const;
  std::vector<int> get_int_list(std::string_view key) const;  // absent: empty
  std::vector<std::string> get_string_list(std::string_view key) const;
  HfJson object(std::string_view key) const;  // a required sub-object
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;

 private:
  const nlohmann::json* find(std::string_view key) const;

  const nlohmann::json* object_;
  std::string source_;
  std::string prefix_;
};

}  // namespace moesim::models
