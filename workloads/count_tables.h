// Table-driven samplers for the routing-count fast path (routing_sampler.cpp), each driven by
// raw random bits so one 64-bit draw feeds two Poisson samples.
//
// PoissonTable: inverse-CDF sampling of Poisson(lambda) from a 32-bit uniform, with a guide
// table (Chen & Asau 1974) so a draw is O(1) (expected < 2 comparisons). The table spans
// lambda ± (7 sqrt(lambda) + 8), renormalised; the mass outside (< 1e-11) and the 2^-32
// quantisation of the CDF are the only departures from the exact law. The guide has about four
// buckets per entry, most of them inside one value's CDF interval: a draw then reads one guide
// entry and nothing else.
// Building costs O(sqrt(lambda)); the sampler amortises a table over every source row with the
// same mean.
//
// AliasTable: Walker/Vose alias method over a discrete distribution, one 64-bit draw per sample.
//
// FastBits (workloads/rng.h) feeds them: one 64-bit draw gives two Poisson samples.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "workloads/rng.h"

namespace moesim::workloads {

class PoissonTable {
 public:
  PoissonTable();
  void build(double lambda);  // lambda >= 0
  std::int64_t operator()(std::uint32_t u) const {
    if (cdf_.empty()) return lo_;
    const std::uint32_t g = guide_[u >> shift_];
    if (g & kPure) return lo_ + static_cast<std::int64_t>(g & ~kPure);
    std::size_t i = g;
    while (u >= cdf_[i]) ++i;
    return lo_ + static_cast<std::int64_t>(i);
  }

 private:
  static constexpr std::uint32_t kPure = 1u << 31;  // guide flag: the bucket holds one value
  std::int64_t lo_ = 0;
  int shift_ = 32;
  std::vector<std::uint64_t> cdf_;  // P(X <= lo + i) · 2^32, last entry 2^32
  std::vector<std::uint32_t> guide_;
  std::vector<double> pmf_;  // scratch
  static constexpr std::size_t kReciprocals = 128;
  std::array<double, kReciprocals> reciprocals_{};  // 1 / x
};

class AliasTable {
 public:
  void build(std::span<const double> weights);  // not all zero
  std::size_t operator()(std::uint64_t r) const {
    const auto i = static_cast<std::size_t>(((r >> 32) * n_) >> 32);
    return (r & 0xFFFFFFFFu) < threshold_[i] ? i : alias_[i];
  }

 private:
  std::uint64_t n_ = 0;
  std::vector<std::uint64_t> threshold_;  // keep-probability · 2^32
  std::vector<std::uint32_t> alias_;
  std::vector<double> scaled_;
  std::vector<std::uint32_t> small_, large_;
};

}  // namespace moesim::workloads
