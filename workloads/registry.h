// A registry entry of a pluggable model: a name and a one-line description (docs/design.md §6).
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

}  // namespace moesim::workloads
