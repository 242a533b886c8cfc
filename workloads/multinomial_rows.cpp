#include "workloads/multinomial_rows.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>
#include <utility>

#include "workloads/binomial.h"
#include "workloads/routing_model.h"

namespace moesim::workloads {
namespace {

// Above this cell mean, rows use exact conditional binomials (tables would be large).
constexpr double kMaxTableMean = 1e5;

// Whether a run of `rows` rows over weights q is drawn faster by tables than by conditional
// binomials. Both are exact, so this only picks the cheaper, and keeps tables unless binomials
// are clearly (4x) cheaper, since the estimates are rough. Measured on the development
// machine: a column's table costs about max(50 + 70 sqrt(m), 135 sqrt(m) - 300) ns to build
// for a cell mean m, a look-up ~2 ns a cell, a conditional binomial ~50 ns a column. A few
// rows with large means (a hierarchical prefill's rows over 4 nodes, 16k pairs a cell) are
// drawn a hundred times faster by binomials; a decode step's 144 equal rows, by tables.
bool tables_pay(std::size_t rows, double mu, std::span<const double> q) {
  double table_ns = 0, binomial_ns = 0;
  const auto r = static_cast<double>(rows);
  for (const double w : q) {
    if (!(w > 0)) continue;
    const double root = std::sqrt(mu * w);
    table_ns += std::max(50.0 + 70.0 * root, 135.0 * root - 300.0) + 2.0 * r;
    binomial_ns += 50.0 * r;
  }
  return table_ns < 4.0 * binomial_ns;
}

// The Poisson cells' total mean for a row of n: a standard deviation below n, so the total
// rarely exceeds n (about one row in six) and the correction is mostly cheap additions.
// Any mean is exact: given their total T, the cells are Multinomial(T, q), and topping up
// with categorical draws or removing uniformly chosen ones both give Multinomial(n, q).
double poisson_total(std::int64_t n) {
  const auto nd = static_cast<double>(n);
  return std::max(0.0, nd - std::sqrt(nd));
}

}  // namespace

void MultinomialRows::draw(std::span<const std::int64_t> totals, std::span<const int> cls,
                           std::span<const double> probs, int cols, Rng& rng, std::span<std::int64_t> out) {
  const std::size_t rows = totals.size();
  const auto D = static_cast<std::size_t>(cols);
  std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(rows * D), 0);
  order_.resize(rows);
  std::iota(order_.begin(), order_.end(), std::size_t{0});
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(cls[a], totals[a]) < std::pair(cls[b], totals[b]);
  });
  int classes = 0;
  for (const int c : cls) classes = std::max(classes, c + 1);
  alias_.resize(static_cast<std::size_t>(classes));
  alias_built_.assign(static_cast<std::size_t>(classes), 0);
  std::size_t top_bit = 1;
  while (top_bit * 2 <= D) top_bit *= 2;
  fenwick_.resize(2 * top_bit);  // entries past D never taken (set to the maximum below)

  for (std::size_t begin = 0; begin < rows;) {
    const std::size_t s0 = order_[begin];
    const auto c = static_cast<std::size_t>(cls[s0]);
    std::size_t end = begin + 1;
    while (end < rows && cls[order_[end]] == cls[s0] && totals[order_[end]] == totals[s0]) ++end;
    const std::int64_t n = totals[s0];
    const std::span<const double> q(probs.data() + c * D, D);
    if (n <= 0) {
      begin = end;
      continue;
    }
    const double qmax = *std::max_element(q.begin(), q.end());
    if (static_cast<double>(n) * qmax > kMaxTableMean) {
      for (std::size_t i = begin; i < end; ++i) sample_multinomial(n, q, rng, out.subspan(order_[i] * D, D));
      begin = end;
      continue;
    }
    FastBits bits{rng()};
    const std::size_t run = end - begin;
    const double mu = poisson_total(n);
    if (!tables_pay(run, mu, q)) {
      for (std::size_t i = begin; i < end; ++i) sample_multinomial(n, q, bits, out.subspan(order_[i] * D, D));
      begin = end;
      continue;
    }
    // Column by column: one table per column, shared by every row of the run (L1-resident).
    tmp_.assign(run, 0);
    for (std::size_t d = 0; d < D; ++d) {
      table_.build(mu * q[d]);
      std::size_t i = 0;
      for (; i + 1 < run; i += 2) {
        const std::uint64_t r = bits();
        const auto a = table_(static_cast<std::uint32_t>(r)), b = table_(static_cast<std::uint32_t>(r >> 32));
        out[order_[begin + i] * D + d] = a;
        out[order_[begin + i + 1] * D + d] = b;
        tmp_[i] += a;
        tmp_[i + 1] += b;
      }
      if (i < run) tmp_[i] += out[order_[begin + i] * D + d] = table_(static_cast<std::uint32_t>(bits()));
    }
    for (std::size_t i = begin; i < end; ++i) {
      std::int64_t* row = out.data() + order_[i] * D;
      std::int64_t total = tmp_[i - begin];
      if (total < n) {  // add i.i.d. categorical draws
        if (!alias_built_[c]) {
          alias_[c].build(q);
          alias_built_[c] = 1;
        }
        for (; total < n; ++total) ++row[alias_[c](bits())];
      } else if (total > n) {  // remove draws chosen uniformly among those made
        std::fill(fenwick_.begin(), fenwick_.begin() + static_cast<std::ptrdiff_t>(D + 1), 0);
        std::fill(fenwick_.begin() + static_cast<std::ptrdiff_t>(D + 1), fenwick_.end(), INT64_MAX);
        for (std::size_t k = 1; k <= D; ++k) {
          fenwick_[k] += row[k - 1];
          if (const std::size_t up = k + (k & (~k + 1)); up <= D) fenwick_[up] += fenwick_[k];
        }
        for (; total > n; --total) {
          auto u = static_cast<std::int64_t>(((bits() >> 32) * static_cast<std::uint64_t>(total)) >> 32);
          std::size_t pos = 0;
          for (std::size_t bit = top_bit; bit > 0; bit >>= 1) {  // branch-free descent
            const std::int64_t f = fenwick_[pos + bit];
            const bool take = f <= u;
            pos += take ? bit : 0;
            u -= take ? f : 0;
          }
          --row[pos];
          for (std::size_t k = pos + 1; k <= D; k += k & (~k + 1)) --fenwick_[k];
        }
      }
    }
    begin = end;
  }
}

}  // namespace moesim::workloads
