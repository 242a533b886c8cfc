// The errors of the command line itself, beside those of the libraries below (docs/design.md §6):
// both are models::Error, so that main() catches them once (tools/error_exit.h).
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::tools {

// A bad flag value noticed after parsing (unknown preset name, inconsistent flags): main()
// prints "moesim: <what>" and exits 2.
class UsageError : public models::Error {
 public:
  explicit UsageError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kUsage, what, std::move(position)) {}
};

// The machine refused what the command asked of it (an output folder that cannot be created, a
// file that cannot be written, an MPI call that failed): main() prints "moesim: <what>" and exits 1.
class SystemError : public models::Error {
 public:
  explicit SystemError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kSystem, what, std::move(position)) {}
};

}  // namespace moesim::tools
