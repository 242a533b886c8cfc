// A registry entry of a pluggable model: a name and a one-line description (docs/design.md §6).
// The registry type is models/registry.h's, shared with calibration/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/registry.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {

using models::join_names;
using models::registry_name;
using models::RegistryEntry;

// For a registry whose entries are listed in the order of an enum's values: the value named
// `name`, or WorkloadError "unknown <what> 'x' (valid: a, b, c)".
template <typename Enum>
Enum registry_value(const std::vector<RegistryEntry>& entries, std::string_view name, std::string_view what) {
  if (const auto value = models::registry_lookup<Enum>(entries, name)) return *value;
  throw WorkloadError("unknown " + std::string(what) + " '" + std::string(name) + "' (valid: " + join_names(entries) +
                      ")");
}

}  // namespace moesim::workloads
