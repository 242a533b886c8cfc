// BinomialBatch (workloads/binomial_batch.h): a batch draws exactly what one-by-one draws would,
// bit for bit, whichever path each variate takes; rows in lockstep split every row's total.
#include "workloads/binomial_batch.h"
#include "workloads/binomial_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace moesim::workloads {
namespace {

// Parameters over every path: trivial (n 0, p 0 or 1), reflected (p > 1/2), small variance
// (inversion, BTRS) and the fast method's normal path, in an order that mixes them.
void parameters(std::size_t count, std::vector<std::int64_t>& n, std::vector<double>& p) {
  FastBits g{99};
  n.resize(count);
  p.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t r = g();
    n[i] = static_cast<std::int64_t>(r % 600) - 20;  // some <= 0
    const double u = static_cast<double>(g() >> 11) * 0x1.0p-53;
    switch (i % 7) {
      case 0: p[i] = 0.0; break;
      case 1: p[i] = 1.0; break;
      case 2: p[i] = 0.5 + 0.5 * u; break;  // reflected
      case 3: p[i] = 0.01 * u; break;       // small means
      default: p[i] = u; break;
    }
  }
}

TEST(BinomialBatch, DrawsWhatOneByOneDrawsDraw) {
  for (const CountMethod method : {CountMethod::kExact, CountMethod::kFast})
    for (const std::size_t count :
         {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{144}, std::size_t{1001}}) {
      std::vector<std::int64_t> n, batch(count), one(count);
      std::vector<double> p;
      parameters(count, n, p);
      BinomialBatch b(method);
      FastBits x{5}, y{5};
      b.draw(n, p, x, batch);
      for (std::size_t i = 0; i < count; ++i) one[i] = sample_binomial(n[i], p[i], y, method);
      EXPECT_EQ(batch, one) << count_method_name(method) << " " << count;
      EXPECT_EQ(x.state, y.state) << count_method_name(method) << " " << count;
    }
}

// The four-lane inversions give every lane what one inversion gives, on the processor's best lanes
// and on the baseline ones alike (so every machine draws the same counts): means from 0.01 to
// 12, n from 1 to 2^20, uniforms over (0, 1) and at both ends.
TEST(BinomialLanes, FourAtATimeAsOneAtATime) {
  FastBits g{31};
  const auto uniform = [&] { return static_cast<double>(g() >> 11) * 0x1.0p-53; };
  const std::size_t count = 20'003;
  std::vector<std::int64_t> n(count), best(count), base(count);
  std::vector<double> p(count), u(count);
  for (std::size_t i = 0; i < count; ++i) {
    n[i] = i % 97 == 0 ? kInversionMaxN : 1 + static_cast<std::int64_t>(g() % (i % 3 == 0 ? 40 : 2000));
    const double mean = (i % 5 == 0 ? 0.01 : 12.0) * uniform();
    p[i] = std::min(0.5, std::max(1e-12, mean / static_cast<double>(n[i])));
    u[i] = i % 211 == 0 ? 0.0 : i % 223 == 0 ? 1.0 - 0x1.0p-53 : uniform();
  }
  binomial_inversions(n, p, u, best, Lanes::kBest);
  binomial_inversions(n, p, u, base, Lanes::kBaseline);
  for (std::size_t i = 0; i < count; ++i) {
    ASSERT_EQ(best[i], binomial_inversion(n[i], p[i], u[i])) << i << " n=" << n[i] << " p=" << p[i] << " u=" << u[i];
    ASSERT_EQ(base[i], best[i]) << i;
  }
}

TEST(BinomialBatch, RowsInLockstepSplitEachRowsTotal) {
  const std::size_t rows = 37, m = 5;
  std::vector<std::int64_t> n(rows);
  std::vector<double> cond(rows * m);
  for (std::size_t r = 0; r < rows; ++r) {
    n[r] = static_cast<std::int64_t>(r * 41 % 300);
    std::vector<double> w(m);
    for (std::size_t j = 0; j < m; ++j) w[j] = (r + j) % 4 == 0 ? 0.0 : 1.0 + static_cast<double>((r * 7 + j) % 5);
    multinomial_conditionals(w, std::span<double>(cond.data() + r * m, m));
  }
  for (const CountMethod method : {CountMethod::kExact, CountMethod::kFast}) {
    BinomialBatch b(method);
    FastBits x{8}, y{8};
    std::vector<std::int64_t> out(rows * m, 0);
    b.conditional_rows(n, cond, m, x, out);
    // The same draws column by column, one at a time.
    std::vector<std::int64_t> rest = n, ref(rows * m, 0);
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t r = 0; r < rows; ++r) {
        const std::int64_t c = sample_binomial(rest[r], cond[r * m + j], y, method);
        ref[r * m + j] += c;
        rest[r] -= c;
      }
    EXPECT_EQ(out, ref) << count_method_name(method);
    for (std::size_t r = 0; r < rows; ++r) {
      EXPECT_EQ(std::accumulate(out.begin() + static_cast<std::ptrdiff_t>(r * m),
                                out.begin() + static_cast<std::ptrdiff_t>((r + 1) * m), std::int64_t{0}),
                n[r]);
      for (std::size_t j = 0; j < m; ++j) {
        if (cond[r * m + j] == 0) {
          EXPECT_EQ(out[r * m + j], 0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace moesim::workloads
