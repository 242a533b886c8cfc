#include "workloads/binomial_batch.h"

#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "workloads/binomial_lanes.h"
#include "workloads/cornish_fisher.h"
#include "workloads/normal.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

using V2 = double __attribute__((vector_size(16)));  // two lanes: one SSE2 register

V2 sqrt2(V2 v) {
#if defined(__SSE2__)
  return _mm_sqrt_pd(v);  // correctly rounded, as std::sqrt
#else
  for (int l = 0; l < 2; ++l) v[l] = std::sqrt(v[l]);
  return v;
#endif
}

// A deferred variate's index, complemented where it is drawn for 1 - p (its count then n - x).
std::int64_t tagged(std::size_t i, bool reflect) {
  return reflect ? ~static_cast<std::int64_t>(i) : static_cast<std::int64_t>(i);
}
std::size_t index_of(std::int64_t tag) { return static_cast<std::size_t>(tag < 0 ? ~tag : tag); }
// Writes the count x drawn for the variate with that tag.
void put(std::int64_t tag, std::int64_t x, std::span<const std::int64_t> n, std::span<std::int64_t> out) {
  const std::size_t i = index_of(tag);
  out[i] = tag < 0 ? n[i] - x : x;
}

}  // namespace

void BinomialBatch::draw(std::span<const std::int64_t> n, std::span<const double> p, FastBits& bits,
                         std::span<std::int64_t> out) {
  if (p.size() != n.size() || out.size() != n.size())
    throw WorkloadError("binomial batch: n, p and out must have one entry per draw");
  const std::size_t size = n.size();
  if (size < 4) {  // too few to gain from the vector pass: one by one (the same draws)
    for (std::size_t i = 0; i < size; ++i) out[i] = sample_binomial(n[i], p[i], bits, method_);
    return;
  }
  // In index order, every variate's own bits: an exact draw, or a fast variate's normal (its map,
  // which draws nothing, waits for the vector pass below).
  fast_index_.resize(size);
  fast_n_.resize(size);
  fast_p_.resize(size);
  fast_z_.resize(size);
  slow_index_.resize(size);
  slow_n_.resize(size);
  slow_p_.resize(size);
  slow_u_.resize(size);
  const ZigguratTable& zig = ziggurat_table();
  std::size_t count = 0, slow = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::int64_t ni = n[i];
    double pi = p[i];
    if (ni <= 0 || pi <= 0) {
      out[i] = 0;
      continue;
    }
    if (pi >= 1) {
      out[i] = ni;
      continue;
    }
    const bool reflect = pi > 0.5;
    if (reflect) pi = 1.0 - pi;
    if (method_ == CountMethod::kFast && normal_path(ni, pi)) {
      fast_index_[count] = tagged(i, reflect);
      fast_n_[count] = static_cast<double>(ni);
      fast_p_[count] = pi;
      fast_z_[count] = standard_normal(bits, zig);
      ++count;
      continue;
    }
    if (ni <= kInversionMaxN && inversion_path(ni, pi)) {
      // Inversion draws one uniform; its walk waits for the four-lane pass below.
      slow_index_[slow] = tagged(i, reflect);
      slow_n_[slow] = ni;
      slow_p_[slow] = pi;
      slow_u_[slow] = unit_uniform(bits);
      ++slow;
      continue;
    }
    const std::int64_t x = sample_binomial(ni, pi, bits, CountMethod::kExact);
    out[i] = reflect ? ni - x : x;
  }
  // The fast variates' maps, two at a time (the same operations as one at a time).
  std::size_t k = 0;
  const auto finish = [&](std::size_t j, double point) {
    const std::int64_t tag = fast_index_[j];
    put(tag, normal_count(n[index_of(tag)], point), n, out);
  };
  for (; k + 2 <= count; k += 2) {
    const V2 nd = {fast_n_[k], fast_n_[k + 1]}, pp = {fast_p_[k], fast_p_[k + 1]}, z = {fast_z_[k], fast_z_[k + 1]};
    const V2 point = cornish_fisher_point(nd, pp, z, sqrt2);
    finish(k, point[0]);
    finish(k + 1, point[1]);
  }
  for (; k < count; ++k) finish(k, cornish_fisher_point(fast_n_[k], fast_p_[k], fast_z_[k]));
  // The inversions, four at a time (the same walks as one at a time).
  slow_out_.resize(slow);
  binomial_inversions(std::span<const std::int64_t>(slow_n_.data(), slow),
                      std::span<const double>(slow_p_.data(), slow), std::span<const double>(slow_u_.data(), slow),
                      slow_out_);
  for (std::size_t j = 0; j < slow; ++j) put(slow_index_[j], slow_out_[j], n, out);
}

void BinomialBatch::conditional_rows(std::span<const std::int64_t> n, std::span<const double> cond, std::size_t m,
                                     FastBits& bits, std::span<std::int64_t> out) {
  const std::size_t rows = n.size();
  if (cond.size() != rows * m || out.size() != rows * m)
    throw WorkloadError("binomial batch: conditionals and counts must have m entries per row");
  if (rows == 1) {  // column by column is along the row: the chain as sample_conditional draws it
    sample_conditional(n[0], cond, bits, out, method_);
    return;
  }
  rest_.assign(n.begin(), n.end());
  column_.resize(rows);
  column_p_.resize(rows);
  for (std::size_t j = 0; j < m; ++j) {
    if (std::all_of(rest_.begin(), rest_.end(), [](std::int64_t x) { return x <= 0; })) break;
    for (std::size_t r = 0; r < rows; ++r) column_p_[r] = cond[r * m + j];
    draw(rest_, column_p_, bits, column_);
    for (std::size_t r = 0; r < rows; ++r) {
      out[r * m + j] += column_[r];
      rest_[r] -= column_[r];
    }
  }
}

}  // namespace moesim::workloads
