// The per-architecture mappings behind load_hf_config (internal to models/).
#pragma once

#include <span>
#include <string_view>

#include "models/hf_json.h"
#include "models/model_spec.h"

namespace moesim::models {

struct HfArchitecture {
  std::string_view name;
  // Maps the (text) config to a spec; name, source and dtypes are filled in by the caller.
  ModelSpec (*map)(const HfJson& config);
  bool text_config = false;  // the model's fields live under "text_config"
};

std::span<const HfArchitecture> hf_architecture_table();

}  // namespace moesim::models
