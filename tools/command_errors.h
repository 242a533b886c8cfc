// The errors of the command line itself, beside those of the libraries below (docs/design.md §6):
// both are models::Error, so that main() catches them once (tools/error_exit.h).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/error.h"
#include "models/registry.h"

namespace moesim::tools {

// A bad flag value noticed after parsing (unknown preset name, inconsistent flags): main()
// prints "moesim: <what>" and exits 2.
class UsageError : public models::Error {
 public:
  explicit UsageError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kUsage, what, std::move(position)) {}
};

// The value a flag names in a registry listed in the order of Enum (models/registry.h), or
// UsageError "<flag>: unknown <what> 'x'; did you mean 'y'? (valid: a, b)".
template <typename Enum>
Enum flag_value(std::string_view flag, std::string_view what, const std::vector<models::RegistryEntry>& entries,
                std::string_view name) {
  if (const auto value = models::registry_lookup<Enum>(entries, name)) return *value;
  throw UsageError(std::string(flag) + ": " + models::unknown_registry_name(what, name, entries));
}

// The machine refused what the command asked of it (an output folder that cannot be created, a
// file that cannot be written, an MPI call that failed): main() prints "moesim: <what>" and exits 1.
class SystemError : public models::Error {
 public:
  explicit SystemError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kSystem, what, std::move(position)) {}
};

}  // namespace moesim::tools
