// Shared helpers for the models/ tests: presets by name and the checked-in HF config fixtures.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/presets.h"

namespace moesim::models::test {

inline ModelSpec preset(const std::string& name) {
  auto m = find_model_preset(name);
  EXPECT_TRUE(m.has_value()) << name;
  return m.value_or(ModelSpec{});
}

inline std::string data_path(const std::string& file) {
  return std::string(MOESIM_SOURCE_DIR) + "/tests/models/data/" + file;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fixture's config.json as JSON (the text_config for multimodal wrappers), read independently
// of the importer so tests can derive expectations from the config itself.
inline nlohmann::json fixture_config(const std::string& preset_name) {
  nlohmann::json j = nlohmann::json::parse(read_text(data_path(preset_name + ".config.json")));
  return j.contains("text_config") ? j["text_config"] : j;
}

}  // namespace moesim::models::test
