#include "models/presets.h"

#include "models/embedded_file.h"
#include "models/model_yaml.h"

namespace moesim::models {
namespace {

// Parsed once; a malformed embedded preset throws ModelError naming its file (the preset tests
// load every one, so that cannot ship).
const std::vector<ModelSpec>& presets() {
  static const std::vector<ModelSpec> specs = [] {
    std::vector<ModelSpec> out;
    for (const EmbeddedFile& f : embedded_model_presets()) out.push_back(load_model_yaml(f.text, f.path));
    return out;
  }();
  return specs;
}

}  // namespace

std::vector<ModelPresetInfo> model_presets() {
  std::vector<ModelPresetInfo> out;
  for (const ModelSpec& m : presets()) out.push_back({m.name, m.description});
  return out;
}

std::optional<ModelSpec> find_model_preset(std::string_view name) {
  for (const ModelSpec& m : presets())
    if (m.name == name) return m;
  return std::nullopt;
}

}  // namespace moesim::models
