// The metrics lock (docs/robustness.md, "Numbers under review"): the key figures of every library
// scenario and every validation case, kept in tests/golden/metrics.lock. A change that moves any
// of them fails MetricsLock.*; tools/update-golden rewrites the file and prints what moved, and
// the commit that moves a number carries the new file, so its diff shows every figure that moved.
//
// The file is a list of sections, one per scenario or case, each a header line `[id]` followed
// by `figure value` lines; `#` starts a comment.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace moesim::testing {

// One entry to lock: library scenarios by file stem, validation cases by name.
struct LockItem {
  std::string id;    // "library/<stem>" or "validation/<case>"
  std::string path;  // the scenario file (library) or the validation folder
  std::string name;  // the case (validation)
};

using Figures = std::vector<std::pair<std::string, double>>;

// Every library scenario (scenarios/library/*.yaml, sorted) and every non-ratio validation case.
std::vector<LockItem> lock_items();
// Runs one item and returns its figures. Library runs are capped at kLockRequests requests.
Figures lock_figures(const LockItem& item);
inline constexpr int kLockRequests = 300;

// "figure value" lines, values with 9 significant digits.
std::string format_section(const Figures& figures);
// The lock file's sections by id, each as its figures. Throws std::runtime_error for a malformed
// line (naming file:line).
std::map<std::string, Figures> read_lock(const std::string& path);

}  // namespace moesim::testing
