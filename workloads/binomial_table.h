// BinomialTable: Binomial(n, p) for parameters drawn from many times, by inversion of its
// tabulated CDF with a guide table (Chen & Asau 1974): a draw reads one guide entry and compares
// one or two CDF values, about a fifth of a BTRS draw (workloads/binomial.h).
//
// The same law as sample_binomial, to double rounding: the pmf is built outward from the mode by
// its exact successive ratios and tabulated until it falls below 1e-22 of the mode's value on
// the side where it keeps falling, so the mass left out is under 1e-21, far below the 2^-53
// resolution of the uniform that inverts it (sequential inversion, binomial.h, has the same
// resolution). Building costs O(sd) with one division per entry (about 1 us at sd 7), so it pays
// once a table serves a few dozen draws; `fits` bounds its size.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "workloads/rng.h"

namespace moesim::workloads {

class BinomialTable {
 public:
  // Whether a table for (n, p) stays small (at most kMaxEntries values tabulated).
  static bool fits(std::int64_t n, double p);
  static constexpr std::size_t kMaxEntries = 8192;  // indices fit the 16-bit guide

  void build(std::int64_t n, double p);  // p clamped to [0, 1]; throws std::invalid_argument unless fits(n, p)
  bool built_for(std::int64_t n, double p) const { return built_ && n == n_ && p == p_; }
  void clear() { built_ = false; }  // built_for nothing (the storage is kept for the next build)

  std::int64_t operator()(FastBits& bits) const {
    if (cdf_.empty()) return lo_;
    const double u = static_cast<double>(bits() >> 11) * 0x1.0p-53;
    std::size_t i = guide_[static_cast<std::size_t>(u * guide_scale_)];
    while (u >= cdf_[i]) ++i;  // cdf_.back() == 1 > u stops it
    return lo_ + static_cast<std::int64_t>(i);
  }

 private:
  bool built_ = false;
  std::int64_t n_ = 0;
  double p_ = 0;
  std::int64_t lo_ = 0;         // the first tabulated value (the only one when cdf_ is empty)
  std::vector<double> cdf_;     // P(X <= lo + i), renormalised over the table; last entry 1
  // [bucket b]: the first i with cdf_[i] > b / buckets. Compact on purpose: a site's tables are
  // read a few times per step among many others, and the lines they keep hot matter more than
  // the one or two they read per draw.
  std::vector<std::uint16_t> guide_;
  double guide_scale_ = 0;      // buckets
};

// Binomial(n, p) at one call site whose parameters mostly repeat (the rows of a steady batch,
// step after step, or the two micro-batches of a two-batch overlap): a (n, p) drawn
// kStreak times in a row gets a table, and the last two tables built are kept while they serve
// draws (one unused over kIdle calls of the site is dropped: a table read rarely is read cold,
// slower than sampling). Every other draw goes through sample_binomial, so parameters that
// change from draw to draw (group-limited rows, a prefill's chunks) never pay for a table. The
// law is the same either way; which way a draw goes depends on the site's history, so a site's
// draws are reproducible from the same sequence of calls (and seed), not call by call.
class RepeatedBinomial {
 public:
  static constexpr int kStreak = 6;
  static constexpr int kIdle = 32;
  std::int64_t operator()(std::int64_t n, double p, FastBits& bits);

 private:
  std::array<BinomialTable, 2> tables_;
  std::array<int, 2> idle_{};  // calls since each table last served one
  std::pair<std::int64_t, double> last_{-1, 0.0};
  int streak_ = 0, next_table_ = 0;
};

}  // namespace moesim::workloads
