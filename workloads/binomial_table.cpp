#include "workloads/binomial_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "workloads/binomial.h"

namespace moesim::workloads {
namespace {

// Where the pmf, relative to the mode's, is small enough to stop tabulating.
constexpr double kCut = 1e-22;

}  // namespace

bool BinomialTable::fits(std::int64_t n, double p) {
  if (n <= 0 || !(p > 0) || !(p < 1)) return true;
  // The table spans about ±sqrt(2 ln(1/kCut)) ≈ ±10 sd around the mode.
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  return 22 * sd + 24 < static_cast<double>(kMaxEntries);
}

void BinomialTable::build(std::int64_t n, double p) {
  if (!fits(n, p)) throw std::invalid_argument("binomial table: Binomial(n, p) too wide for a table (see fits)");
  built_ = true;
  n_ = n;
  p_ = p;
  cdf_.clear();
  guide_.clear();
  if (n <= 0 || !(p > 0)) {
    lo_ = 0;
    return;
  }
  if (!(p < 1)) {
    lo_ = n;
    return;
  }
  const double nd = static_cast<double>(n), s = p / (1 - p), r = (1 - p) / p;
  const auto mode = std::min<std::int64_t>(n, static_cast<std::int64_t>(std::floor((nd + 1) * p)));
  // Relative pmf from the mode outward, f(mode) = 1, by the successive ratios
  // f(k+1)/f(k) = (n-k)/(k+1) · p/q and f(k-1)/f(k) = k/(n-k+1) · q/p, until it falls below kCut
  // where it keeps falling; one walk per side, each appending f(mode ± 1), f(mode ± 2), ...
  const auto walk = [&](int dir, std::vector<double>& out) {
    for (double f = 1;;) {
      const std::int64_t k = mode + dir * static_cast<std::int64_t>(out.size());  // f is f(k)
      if (k == (dir < 0 ? 0 : n)) break;
      const auto kd = static_cast<double>(k);
      const double ratio = dir < 0 ? kd / (nd - kd + 1) * r : (nd - kd) / (kd + 1) * s;
      f *= ratio;
      if (f < kCut && ratio < 1) break;
      out.push_back(f);
    }
  };
  std::vector<double> down, up;  // f(mode - 1 - i), f(mode + 1 + i)
  walk(-1, down);
  walk(+1, up);
  cdf_.assign(down.rbegin(), down.rend());
  cdf_.push_back(1.0);
  cdf_.insert(cdf_.end(), up.begin(), up.end());
  lo_ = mode - static_cast<std::int64_t>(down.size());
  const std::size_t size = cdf_.size();
  double total = 0;
  for (double& c : cdf_) c = (total += c);
  const double inv_total = 1.0 / total;
  for (double& c : cdf_) c *= inv_total;
  cdf_.back() = 1.0;
  // At least as many buckets as entries (a power of two): a draw then mostly compares one or two
  // CDF values, and the table stays a few cache lines around the mode.
  std::size_t buckets = 16;
  while (buckets < size) buckets *= 2;
  guide_.resize(buckets);
  guide_scale_ = static_cast<double>(buckets);
  std::size_t j = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const double start = static_cast<double>(b) / guide_scale_;
    while (cdf_[j] <= start) ++j;
    guide_[b] = static_cast<std::uint16_t>(j);
  }
}

std::int64_t RepeatedBinomial::operator()(std::int64_t n, double p, FastBits& bits) {
  std::int64_t x = -1;
  for (std::size_t i = 0; i < tables_.size(); ++i) {
    if (tables_[i].built_for(n, p)) {
      idle_[i] = 0;
      x = tables_[i](bits);
    } else if (++idle_[i] > kIdle) {
      tables_[i].clear();
    }
  }
  if (x >= 0) return x;
  const std::pair<std::int64_t, double> key{n, p};
  streak_ = key == last_ ? streak_ + 1 : 1;
  last_ = key;
  if (streak_ >= kStreak && BinomialTable::fits(n, p)) {
    const auto i = static_cast<std::size_t>(next_table_);
    next_table_ ^= 1;
    tables_[i].build(n, p);
    idle_[i] = 0;
    return tables_[i](bits);
  }
  return sample_binomial(n, p, bits);
}

}  // namespace moesim::workloads
