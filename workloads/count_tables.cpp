#include "workloads/count_tables.h"

#include <algorithm>
#include <cmath>

namespace moesim::workloads {

void PoissonTable::build(double lambda) {
  cdf_.clear();
  if (!(lambda > 0)) {
    lo_ = 0;
    return;
  }
  const double span = 7.0 * std::sqrt(lambda) + 8.0;
  lo_ = static_cast<std::int64_t>(std::max(0.0, std::floor(lambda - span)));
  const auto hi = static_cast<std::int64_t>(std::ceil(lambda + span));
  const auto mode = static_cast<std::int64_t>(std::floor(lambda));
  const auto n = static_cast<std::size_t>(hi - lo_ + 1);
  pmf_.resize(n);
  const auto m = static_cast<std::size_t>(mode - lo_);
  // Walk out from the mode (no underflow of e^-lambda for large lambda); small lambda starts at 0.
  // Successive ratios lambda / x: multiplications by a reciprocal, not a chain of divisions.
  const auto ratio = [&](std::int64_t x) {
    return x < static_cast<std::int64_t>(kReciprocals) ? lambda * reciprocals_[static_cast<std::size_t>(x)]
                                                       : lambda / static_cast<double>(x);
  };
  pmf_[m] = lo_ == 0 && lambda < 30 ? 1.0 : 0.0;
  if (pmf_[m] == 0.0) {
    pmf_[m] =
        std::exp(static_cast<double>(mode) * std::log(lambda) - lambda - std::lgamma(static_cast<double>(mode) + 1));
    const double inv_lambda = 1.0 / lambda;
    for (std::size_t i = m; i-- > 0;)
      pmf_[i] = pmf_[i + 1] * (static_cast<double>(lo_ + static_cast<std::int64_t>(i) + 1) * inv_lambda);
  } else {
    pmf_[0] = 1.0;  // unnormalised: the renormalisation below divides by the sum
    for (std::size_t i = 1; i <= m; ++i) pmf_[i] = pmf_[i - 1] * ratio(static_cast<std::int64_t>(i));
  }
  for (std::size_t i = m + 1; i < n; ++i) pmf_[i] = pmf_[i - 1] * ratio(lo_ + static_cast<std::int64_t>(i));
  double total = 0;
  for (double p : pmf_) total += p;
  cdf_.resize(n);
  const double scale = 0x1.0p32 / total;
  double acc = 0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += pmf_[i];
    cdf_[i] = std::min<std::uint64_t>(static_cast<std::uint64_t>(acc * scale + 0.5), 1ULL << 32);
  }
  cdf_.back() = 1ULL << 32;
  // About four buckets per entry (at most 2^12): most buckets then lie inside one entry's CDF
  // interval and give the value at once (flagged pure); the others step from their first entry.
  int bits = 4;
  while ((std::size_t{1} << bits) < 4 * n && bits < 12) ++bits;
  shift_ = 32 - bits;
  guide_.resize(std::size_t{1} << bits);
  // Entry i covers the buckets that start in [cdf[i-1], cdf[i]); the last of them is mixed
  // unless cdf[i] falls on a bucket boundary.
  const std::uint64_t width = std::uint64_t{1} << shift_;
  std::size_t b = 0;
  for (std::size_t i = 0; i < n && b < guide_.size(); ++i) {
    const auto end = std::min<std::size_t>(guide_.size(), static_cast<std::size_t>((cdf_[i] + width - 1) >> shift_));
    if (end > b) {
      std::fill(guide_.begin() + static_cast<std::ptrdiff_t>(b), guide_.begin() + static_cast<std::ptrdiff_t>(end),
                static_cast<std::uint32_t>(i) | kPure);
      if ((static_cast<std::uint64_t>(end) << shift_) > cdf_[i]) guide_[end - 1] = static_cast<std::uint32_t>(i);
      b = end;
    }
  }
}

PoissonTable::PoissonTable() {
  for (std::size_t i = 1; i < kReciprocals; ++i) reciprocals_[i] = 1.0 / static_cast<double>(i);
}

void AliasTable::build(std::span<const double> weights) {
  n_ = weights.size();
  double total = 0;
  for (double w : weights) total += std::max(0.0, w);
  scaled_.resize(weights.size());
  threshold_.assign(weights.size(), 1ULL << 32);
  alias_.resize(weights.size());
  small_.clear();
  large_.clear();
  for (std::size_t i = 0; i < weights.size(); ++i) {
    scaled_[i] = std::max(0.0, weights[i]) / total * static_cast<double>(n_);
    alias_[i] = static_cast<std::uint32_t>(i);
    (scaled_[i] < 1.0 ? small_ : large_).push_back(static_cast<std::uint32_t>(i));
  }
  while (!small_.empty() && !large_.empty()) {
    const auto s = small_.back(), l = large_.back();
    small_.pop_back();
    threshold_[s] = static_cast<std::uint64_t>(scaled_[s] * 0x1.0p32);
    alias_[s] = l;
    scaled_[l] -= 1.0 - scaled_[s];
    if (scaled_[l] < 1.0) {
      large_.pop_back();
      small_.push_back(l);
    }
  }
  // Left-overs (rounding) keep themselves with probability 1.
}

}  // namespace moesim::workloads
