// --set overrides: "a.b.c=value" applied to a scenario tree before validation (docs/design.md §5).
//
// The value is parsed as a YAML node (so "500", "2us" and "{preset: hgx, nodes: 2}" all work) and
// replaces whatever was at a.b.c; missing (or empty) intermediate maps are created. Every node the
// flag introduces has the flag itself as its origin, so validation errors about it read
// "--set a.b.c=value: a.b.c: ...". A malformed flag (no '=', an empty key) is a ScenarioError
// naming the flag.
#pragma once

#include <string>

#include "models/yaml_tree.h"

namespace moesim::scenarios {

// `root` must be a map or empty (an empty root becomes a map).
void apply_override(models::YamlNode& root, const std::string& flag);

}  // namespace moesim::scenarios
