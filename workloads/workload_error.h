// WorkloadError: bad workload input (a trace, a lengths file, a routing trace) — the boundary
// exception of workloads/ (docs/design.md §6). The message names the file and, for text files, the
// line ("trace.csv:17: ..."); for binary files, the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::workloads {

class WorkloadError : public models::Error {
 public:
  explicit WorkloadError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kWorkload, what, std::move(position)) {}
};

[[noreturn]] inline void fail_at_line(const std::string& file, std::int64_t line, const std::string& what) {
  std::string position = file + ":" + std::to_string(line);
  throw WorkloadError(position + ": " + what, position);
}

}  // namespace moesim::workloads
