// Built-in model presets (a registry: name, one-line description, spec).
//
// Each preset is a YAML file in models/presets/ (format: models/model_yaml.h) citing the public
// config.json it follows; the files are compiled into the library and parsed once, on first use.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "models/model_spec.h"

namespace moesim::models {

struct ModelPresetInfo {
  std::string_view name;
  std::string_view description;
};

std::vector<ModelPresetInfo> model_presets();
std::optional<ModelSpec> find_model_preset(std::string_view name);

}  // namespace moesim::models
