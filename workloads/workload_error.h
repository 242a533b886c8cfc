// WorkloadError: bad workload input (a trace, a lengths file, a routing trace) — the boundary
// exception of workloads/ (docs/design.md §6). The message names the file and, for text files, the
// line ("trace.csv:17: ..."); for binary files, the byte offset.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace moesim::workloads {

class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail_at_line(const std::string& file, std::int64_t line, const std::string& what) {
  throw WorkloadError(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace moesim::workloads
