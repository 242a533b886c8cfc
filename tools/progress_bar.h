// A progress bar on stderr for long commands (`moesim run`, `moesim sweep`):
//   [=========           ] 312/1000 requests  41.2 requests/s  ETA 0:17  sim 3.20 s
// It draws only when stderr is a terminal and the CI environment variable is unset (never into
// a pipe, a log file or a CI log), and at most ten times a second.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace moesim::tools {

// Whether a progress bar should be drawn: not quiet, stderr a terminal, CI unset.
bool progress_wanted(bool quiet);

class ProgressBar {
 public:
  // `total` units (e.g. "points", "requests"), `done` of them finished before the bar started.
  ProgressBar(std::size_t total, std::size_t done, std::string_view unit, bool enabled);

  // Redraws with `done` finished units; `extra` goes after the ETA. Draws at most every 0.1 s
  // unless `force`.
  void update(std::size_t done, std::string_view extra = {}, bool force = false);
  // Ends the line (when anything was drawn).
  void finish();
  void set_total(std::size_t total) { total_ = total; }
  bool enabled() const { return enabled_; }

 private:
  std::size_t total_, done_at_start_;
  std::string unit_;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace moesim::tools
