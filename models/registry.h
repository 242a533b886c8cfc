// A registry of named choices (docs/design.md §6): each entry a name and a one-line description
// (shown by `moesim list` and in error messages), listed in the order of an enum's values. The
// boundary that reads a name (the scenario loader, a command-line flag, a calibration-data
// reader) resolves it once; everything below passes the enum value, and text written out takes
// the registry's name, so the registry is the one place a name is spelled. It lives in models/,
// the bottom layer, so that workloads/ and calibration/ share one registry type.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/did_you_mean.h"

namespace moesim::models {

struct RegistryEntry {
  std::string_view name;
  std::string_view description;
};

// The names, in registry order.
inline std::vector<std::string_view> registry_names(const std::vector<RegistryEntry>& entries) {
  std::vector<std::string_view> names;
  names.reserve(entries.size());
  for (const auto& e : entries) names.push_back(e.name);
  return names;
}

// "a, b, c": the valid names, for "unknown X (valid: ...)" messages.
inline std::string join_names(const std::vector<RegistryEntry>& entries) { return join_names(registry_names(entries)); }

// The value named `name` of a registry listed in the order of Enum, or nullopt.
template <typename Enum>
std::optional<Enum> registry_lookup(const std::vector<RegistryEntry>& entries, std::string_view name) {
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].name == name) return static_cast<Enum>(i);
  return std::nullopt;
}

// The name of an enum value of such a registry.
template <typename Enum>
std::string_view registry_name(const std::vector<RegistryEntry>& entries, Enum value) {
  return entries.at(static_cast<std::size_t>(value)).name;
}

// "unknown <what> 'x'; did you mean 'y'? (valid: a, b, c)" (did_you_mean.h).
inline std::string unknown_registry_name(std::string_view what, std::string_view name,
                                         const std::vector<RegistryEntry>& entries) {
  return unknown_name_message(what, name, registry_names(entries));
}

}  // namespace moesim::models
