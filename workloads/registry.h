// A registry entry of a pluggable model: a name and a one-line description (docs/design.md §6).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/workload_error.h"

namespace moesim::workloads {

struct RegistryEntry {
  std::string_view name;
  std::string_view description;
};

// "a, b, c": the valid names, for "unknown X (valid: ...)" messages.
inline std::string join_names(const std::vector<RegistryEntry>& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

// For a registry whose entries are listed in the order of an enum's values: the value named
// `name`, or WorkloadError "unknown <what> 'x' (valid: a, b, c)".
template <typename Enum>
Enum registry_value(const std::vector<RegistryEntry>& entries, std::string_view name, std::string_view what) {
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name == name) return static_cast<Enum>(i);
  throw WorkloadError("unknown " + std::string(what) + " '" + std::string(name) + "' (valid: " + join_names(entries) +
                      ")");
}
// The name of an enum value of such a registry.
template <typename Enum>
std::string_view registry_name(const std::vector<RegistryEntry>& entries, Enum value) {
  return entries.at(static_cast<std::size_t>(value)).name;
}

}  // namespace moesim::workloads
