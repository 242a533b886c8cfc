#include "tools/progress_bar.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace moesim::tools {

bool progress_wanted(bool quiet) { return !quiet && ::isatty(2) == 1 && std::getenv("CI") == nullptr; }

ProgressBar::ProgressBar(std::size_t total, std::size_t done, std::string_view unit, bool enabled)
    : total_(total),
      done_at_start_(done),
      unit_(unit),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressBar::update(std::size_t done, std::string_view extra, bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::size_t fresh = done > done_at_start_ ? done - done_at_start_ : 0;
  const double rate = elapsed > 0 ? static_cast<double>(fresh) / elapsed : 0;
  constexpr std::size_t kWidth = 30;
  const std::size_t filled = total_ ? std::min(kWidth, kWidth * done / total_) : kWidth;
  std::string line = "\r[" + std::string(filled, '=') + std::string(kWidth - filled, ' ') + "] ";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu %s", done, total_, unit_.c_str());
  line += buf;
  if (rate > 0) {
    const long eta = std::lround(static_cast<double>(total_ > done ? total_ - done : 0) / rate);
    std::snprintf(buf, sizeof buf, "  %.2f %s/s  ETA %ld:%02ld", rate, unit_.c_str(), eta / 60, eta % 60);
    line += buf;
  }
  if (!extra.empty()) line += "  " + std::string(extra);
  std::cerr << line << "   " << std::flush;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) std::cerr << "\n" << std::flush;
}

}  // namespace moesim::tools
