// Internal-invariant checks for the simulator (docs/design.md §6).
//
// MOESIM_CHECK(cond, message) throws sim::InvariantError when `cond` is false. It is always on:
// the checks guard cheap conditions (clock monotonicity, conservation) whose violation means the
// simulation is wrong, and an exception (rather than abort) lets tests assert on them and lets
// the command line print one clear line.
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::sim {

// A bug, not bad input: what() names the condition, and position() the file and line of the check.
class InvariantError : public models::Error {
 public:
  explicit InvariantError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kInvariant, what, std::move(position)) {}
};

[[noreturn]] void invariant_failed(const char* expr, const char* file, int line, const std::string& message);

}  // namespace moesim::sim

#define MOESIM_CHECK(cond, message)                                          \
  do {                                                                       \
    if (!(cond)) [[unlikely]]                                                \
      ::moesim::sim::invariant_failed(#cond, __FILE__, __LINE__, (message)); \
  } while (false)
