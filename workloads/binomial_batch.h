// BinomialBatch: many independent binomial draws at once, the way the routing margins need them
// (workloads/routing_margins.h): one per source (its own-node pairs, its self pairs), and rows of
// multinomial splits drawn in lockstep (every rank's pairs over its slots, every node's receipts
// over its ranks), so that a draw never waits on the one before it.
//
// The law is sample_binomial's for the method (workloads/binomial.h). The bits are consumed in a
// fixed order, the same in every build: each variate's own draws in index order (an exact
// variate's, or a fast variate's normal, or an inversion's uniform), as one-by-one draws consume
// them, so a batch draws exactly what one-by-one draws would; the fast variates' Cornish-Fisher
// maps and the inversions' walks (which draw nothing more) then run two or four at a time in
// vector registers (workloads/binomial_lanes.h), the same IEEE operations as one at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "workloads/binomial.h"
#include "workloads/rng.h"

namespace moesim::workloads {

class BinomialBatch {
 public:
  explicit BinomialBatch(CountMethod method = CountMethod::kExact) : method_(method) {}
  CountMethod method() const { return method_; }
  void set_method(CountMethod method) { method_ = method; }

  // out[i] = Binomial(n[i], p[i]) for every i (out is overwritten; p outside [0, 1] is clamped).
  void draw(std::span<const std::int64_t> n, std::span<const double> p, FastBits& bits, std::span<std::int64_t> out);

  // Row r of `rows` rows: Multinomial(n[r], ·) over m categories given as conditionals (binomial.h,
  // multinomial_conditionals) cond[r·m, (r+1)·m), added to out[r·m, (r+1)·m). Column j of every row
  // is one draw() of the rows' remaining pairs.
  void conditional_rows(std::span<const std::int64_t> n, std::span<const double> cond, std::size_t m, FastBits& bits,
                        std::span<std::int64_t> out);

 private:
  CountMethod method_;
  // Scratch kept between calls.
  std::vector<std::int64_t> rest_, column_, fast_index_;
  std::vector<double> column_p_, fast_n_, fast_p_, fast_z_;
  std::vector<std::int64_t> slow_index_, slow_n_, slow_out_;  // the inversions, for the four-lane pass
  std::vector<double> slow_p_, slow_u_;
};

}  // namespace moesim::workloads
