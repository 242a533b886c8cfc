// A registry entry of a pluggable model: a name and a one-line description (DESIGN.md §6).
#pragma once

#include <string_view>

namespace moesim::workloads {

struct RegistryEntry {
  std::string_view name;
  std::string_view description;
};

}  // namespace moesim::workloads
