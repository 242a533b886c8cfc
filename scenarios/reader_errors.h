// Errors of the YAML reader at the scenarios/ boundary. Internal to scenarios/.
//
// The reader (models/yaml_reader.h) throws models::YamlError; every public function of scenarios/
// that reads YAML runs its body through scenario_errors(), so that only ScenarioError leaves
// (docs/design.md §6). The message, one line with its position, is kept as it is.
#pragma once

#include <utility>

#include "models/yaml_tree.h"
#include "scenarios/scenario_error.h"

namespace moesim::scenarios {

template <typename Read>
decltype(auto) scenario_errors(Read&& read) {
  try {
    return std::forward<Read>(read)();
  } catch (const models::YamlError& e) {
    throw ScenarioError(e.what(), e.position());
  }
}

}  // namespace moesim::scenarios
