// The `fitted` cost model against the published DeepGEMM H800 table it was fitted to, plus the
// tile/wave behaviour it must show. The `RefitReproducesCheckedInParameters` test re-runs the
// least-squares fit (on log time) that produced the constants in calibration/gemm_efficiency.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/gemm_efficiency.h"
#include "calibration/hardware_profile.h"

namespace moesim::calibration {
namespace {

struct Row {
  std::string kind, layout;
  std::int64_t groups = 0, m = 0, n = 0, k = 0;
  double tflops = 0;
  double time_ns() const { return 2.0 * groups * m * n * k / (tflops * 1e12) * 1e9; }
};

std::vector<Row> load_rows() {
  std::ifstream in(MOESIM_SOURCE_DIR "/calibration/data/deepgemm_h800.csv");
  EXPECT_TRUE(in.good()) << "missing calibration/data/deepgemm_h800.csv";
  std::vector<Row> rows;
  std::string line;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;  // column names
      continue;
    }
    std::stringstream ss(line);
    std::string f[8];
    for (auto& s : f) std::getline(ss, s, ',');
    Row r;
    r.kind = f[0];
    r.layout = f[1];
    r.groups = std::stoll(f[2]);
    r.m = std::stoll(f[3]);
    r.n = std::stoll(f[4]);
    r.k = std::stoll(f[5]);
    r.tflops = std::stod(f[6]);
    rows.push_back(r);
  }
  return rows;
}

GemmDevice h800_device() {
  const auto hw = find_hardware_preset("h800");
  return {hw->sm_count, hw->peak_fp8_flops, hw->hbm_bytes_per_s};
}

GemmEstimate predict(const Row& r, const GemmDevice& dev, const GemmFitParams& p) {
  if (r.kind == "dense") return estimate_gemm(r.m, r.n, r.k, 1.0, dev, p);
  const std::vector<std::int64_t> tokens(static_cast<std::size_t>(r.groups), r.m);
  return estimate_grouped_gemm(tokens, r.n, r.k, 1.0,
                               r.layout == "contiguous" ? GroupedLayout::kContiguous : GroupedLayout::kMasked, dev, p);
}

double log_sse(const std::vector<Row>& rows, const GemmDevice& dev, const GemmFitParams& p) {
  double s = 0;
  for (const auto& r : rows) {
    const double d = std::log(predict(r, dev, p).time_ns / r.time_ns());
    s += d * d;
  }
  return s;
}

// Parameters as an unconstrained vector: fractions through a logistic, overheads squared (µs).
constexpr int kDim = 5;
using Vec = std::array<double, kDim>;
GemmFitParams from_vec(const Vec& x) {
  auto logistic = [](double v) { return 1 / (1 + std::exp(-v)); };
  GemmFitParams p;
  p.mma_fraction = logistic(x[0]);
  p.hbm_fraction = logistic(x[1]);
  p.fixed_overhead_ns = x[2] * x[2] * 1e3;
  p.per_group_overhead_ns = x[3] * x[3] * 1e3;
  p.per_tile_overhead_ns = x[4] * x[4] * 1e3;
  return p;
}

// Nelder-Mead on the log-time sum of squares; the objective is piecewise smooth (max, ceil), so
// a derivative-free simplex from several starts is used instead of Gauss-Newton.
Vec nelder_mead(const std::vector<Row>& rows, const GemmDevice& dev, Vec x0, double step) {
  auto f = [&](const Vec& x) { return log_sse(rows, dev, from_vec(x)); };
  std::array<Vec, kDim + 1> s;
  std::array<double, kDim + 1> fs;
  for (int i = 0; i <= kDim; ++i) {
    s[i] = x0;
    if (i > 0) s[i][i - 1] += step;
    fs[i] = f(s[i]);
  }
  for (int it = 0; it < 4000; ++it) {
    std::array<int, kDim + 1> idx;
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](int a, int b) { return fs[a] < fs[b]; });
    const int best = idx[0], worst = idx[kDim], second = idx[kDim - 1];
    if (fs[worst] - fs[best] < 1e-14) break;
    Vec c{};
    for (int i = 0; i <= kDim; ++i)
      if (i != worst)
        for (int d = 0; d < kDim; ++d) c[d] += s[i][d] / kDim;
    auto along = [&](double t) {
      Vec v;
      for (int d = 0; d < kDim; ++d) v[d] = c[d] + t * (s[worst][d] - c[d]);
      return v;
    };
    const Vec xr = along(-1);
    const double fr = f(xr);
    if (fr < fs[best]) {
      const Vec xe = along(-2);
      const double fe = f(xe);
      if (fe < fr)
        s[worst] = xe, fs[worst] = fe;
      else
        s[worst] = xr, fs[worst] = fr;
    } else if (fr < fs[second]) {
      s[worst] = xr, fs[worst] = fr;
    } else {
      const Vec xc = along(fr < fs[worst] ? -0.5 : 0.5);
      const double fc = f(xc);
      if (fc < std::min(fr, fs[worst])) {
        s[worst] = xc, fs[worst] = fc;
      } else {
        for (int i = 0; i <= kDim; ++i) {
          if (i == best) continue;
          for (int d = 0; d < kDim; ++d) s[i][d] = s[best][d] + 0.5 * (s[i][d] - s[best][d]);
          fs[i] = f(s[i]);
        }
      }
    }
  }
  return s[std::min_element(fs.begin(), fs.end()) - fs.begin()];
}

GemmFitParams fit(const std::vector<Row>& rows, const GemmDevice& dev) {
  Vec best{};
  double best_f = 1e300;
  // Multi-start over a coarse grid of initial fractions and overheads.
  for (double mma : {-0.5, 0.5, 1.5, 2.5})
    for (double hbm : {-0.5, 0.5, 1.5, 2.5})
      for (double ov : {0.5, 2.0})
        for (double tile : {0.3, 1.5}) {
          Vec x = nelder_mead(rows, dev, {mma, hbm, ov, ov, tile}, 0.5);
          for (int restart = 0; restart < 3; ++restart) x = nelder_mead(rows, dev, x, 0.1);
          const double fx = log_sse(rows, dev, from_vec(x));
          if (fx < best_f) best_f = fx, best = x;
        }
  return from_vec(best);
}

void print_table(const std::vector<Row>& rows, const GemmDevice& dev, const GemmFitParams& p) {
  std::printf("%-8s %-10s %6s %6s %6s %6s | %8s %8s %7s | %5s %5s %6s %5s %s\n", "kind", "layout", "groups", "m", "n",
              "k", "meas_TF", "pred_TF", "err%", "BM", "BN", "tiles", "waves", "bound");
  for (const auto& r : rows) {
    const auto e = predict(r, dev, p);
    const double pred_tf = 2.0 * r.groups * r.m * r.n * r.k / (e.time_ns * 1e-9) / 1e12;
    std::printf("%-8s %-10s %6lld %6lld %6lld %6lld | %8.0f %8.0f %+7.1f | %5d %5d %6lld %5lld %s\n", r.kind.c_str(),
                r.layout.c_str(), static_cast<long long>(r.groups), static_cast<long long>(r.m),
                static_cast<long long>(r.n), static_cast<long long>(r.k), r.tflops, pred_tf,
                100.0 * (pred_tf / r.tflops - 1), e.block_m, e.block_n, static_cast<long long>(e.tiles),
                static_cast<long long>(e.waves), e.compute_bound ? "compute" : "memory");
  }
  std::printf("log-time SSE %.5f, rms %.2f %%\n", log_sse(rows, dev, p),
              100 * std::sqrt(log_sse(rows, dev, p) / rows.size()));
}

TEST(FittedCostModel, CsvHasThirteenRows) { EXPECT_EQ(load_rows().size(), 13u); }

TEST(FittedCostModel, EveryPublishedRowWithinTenPercent) {
  const auto rows = load_rows();
  const auto dev = h800_device();
  const auto p = deepgemm_h800_fit();
  print_table(rows, dev, p);
  for (const auto& r : rows) {
    const double pred = predict(r, dev, p).time_ns;
    EXPECT_NEAR(pred / r.time_ns(), 1.0, 0.10)
        << r.kind << " " << r.layout << " g=" << r.groups << " m=" << r.m << " n=" << r.n << " k=" << r.k;
  }
}

TEST(FittedCostModel, RefitReproducesCheckedInParameters) {
  const auto rows = load_rows();
  const auto dev = h800_device();
  const auto refit = fit(rows, dev);
  std::printf("refit: mma_fraction %.4f hbm_fraction %.4f fixed %.1f ns per_group %.1f ns per_tile %.1f ns\n",
              refit.mma_fraction, refit.hbm_fraction, refit.fixed_overhead_ns, refit.per_group_overhead_ns,
              refit.per_tile_overhead_ns);
  print_table(rows, dev, refit);
  // The checked-in constants are the fit, rounded: no worse than the fresh optimum by much.
  EXPECT_LE(log_sse(rows, dev, deepgemm_h800_fit()), log_sse(rows, dev, refit) * 1.05 + 1e-4);
}

TEST(FittedCostModel, RegisteredNextToRoofline) {
  bool fitted = false, roofline = false;
  for (const auto& m : cost_models()) {
    fitted |= m.name == "fitted";
    roofline |= m.name == "roofline";
  }
  EXPECT_TRUE(fitted);
  EXPECT_TRUE(roofline);
  EXPECT_NO_THROW(make_cost_model(CostModelKind::kFitted, *find_hardware_preset("h800")));
}

TEST(FittedCostModel, TimeStepsAtTileBoundaries) {
  const auto model = make_cost_model(CostModelKind::kFitted, *find_hardware_preset("h800"));
  const auto fp8 = models::DType::kFp8;
  // m = 4224 = 33 × 128 rows and n = 4096 = 16 × 256 give 528 = 4 × 132 full tiles: exactly four
  // waves. One more row cannot fit in four waves of any tile, so it costs a (partial) fifth wave.
  const double t4224 = model->gemm(4224, 4096, 7168, fp8).time_ns;
  const double t4225 = model->gemm(4225, 4096, 7168, fp8).time_ns;
  const double t4230 = model->gemm(4230, 4096, 7168, fp8).time_ns;
  std::printf("gemm n=4096 k=7168: m=4224 %.1f us, m=4225 %.1f us, m=4230 %.1f us\n", t4224 / 1e3, t4225 / 1e3,
              t4230 / 1e3);
  EXPECT_GT(t4225, t4224 * 1.05);
  EXPECT_GT(t4225 / 4225, t4224 / 4224);    // per row, the padded row costs more
  EXPECT_NEAR(t4230, t4225, t4225 * 0.01);  // flat inside the step
  // Time is a non-decreasing step function of M: few distinct values over a range of M.
  double prev = 0;
  int steps = 0;
  for (std::int64_t m = 2048; m <= 8192; ++m) {
    const double t = model->gemm(m, 4096, 7168, fp8).time_ns;
    EXPECT_GE(t, prev * (1 - 1e-12)) << "m=" << m;
    if (t > prev * (1 + 1e-9)) ++steps;
    prev = t;
  }
  EXPECT_LT(steps, 300);  // far fewer than the 6145 values of M
  // The same in a compute-bound grouped GEMM: 4 groups of 4224 rows fill 16 waves exactly; one
  // more row per group pads every group by another tile row.
  const std::vector<std::int64_t> g0(4, 4224), g1(4, 4225);
  const double a = model->grouped_gemm(g0, 4096, 7168, fp8).time_ns;
  const double b = model->grouped_gemm(g1, 4096, 7168, fp8).time_ns;
  std::printf("grouped 4 groups n=4096 k=7168: 4224 rows %.1f us, 4225 rows %.1f us\n", a / 1e3, b / 1e3);
  EXPECT_GT(b / 4225, a / 4224);
  EXPECT_GT(b, a * 1.01);
  // Memory-bound (decode-sized groups): the extra tile row hides under the weight reads.
  const std::vector<std::int64_t> d0(33, 128), d1(33, 129);
  EXPECT_NEAR(model->grouped_gemm(d1, 4096, 7168, fp8).time_ns, model->grouped_gemm(d0, 4096, 7168, fp8).time_ns,
              model->grouped_gemm(d0, 4096, 7168, fp8).time_ns * 0.01);
  // At the curve level: more tiles and more waves.
  const auto dev = h800_device();
  const auto p = deepgemm_h800_fit();
  const auto e0 = estimate_gemm(4224, 4096, 7168, 1.0, dev, p);
  const auto e1 = estimate_gemm(4225, 4096, 7168, 1.0, dev, p);
  EXPECT_EQ(e0.waves, 4);
  EXPECT_GT(e1.waves, e0.waves);
  EXPECT_GT(e1.compute_ns, e0.compute_ns);
}

// DeepGEMM's contiguous layout pads every group to a multiple of 128 rows before tiling; the
// masked layout tiles each group's own rows. 33 groups of one row therefore tile exactly like 33
// groups of 128 rows in the contiguous layout, while the masked layout can use 64-row tiles,
// one per group, and computes faster. (The published rows all have multiples of 128 per group,
// so the fit alone cannot see the padding.)
TEST(FittedCostModel, ContiguousLayoutPadsEachGroupTo128Rows) {
  const auto dev = h800_device();
  const auto p = deepgemm_h800_fit();
  const std::vector<std::int64_t> one_row(33, 1), full(33, 128);
  const auto c1 = estimate_grouped_gemm(one_row, 4096, 7168, 1.0, GroupedLayout::kContiguous, dev, p);
  const auto c128 = estimate_grouped_gemm(full, 4096, 7168, 1.0, GroupedLayout::kContiguous, dev, p);
  const auto m1 = estimate_grouped_gemm(one_row, 4096, 7168, 1.0, GroupedLayout::kMasked, dev, p);
  EXPECT_EQ(c1.tiles, c128.tiles);
  EXPECT_EQ(c1.waves, c128.waves);
  EXPECT_DOUBLE_EQ(c1.compute_ns, c128.compute_ns);
  EXPECT_LT(m1.compute_ns, c1.compute_ns);
  EXPECT_EQ(m1.block_m, 64);
  EXPECT_LT(c1.flops, c128.flops);  // FLOPs count the real rows only
}

TEST(FittedCostModel, SkewedGroupsSlowerThanBalanced) {
  const auto model = make_cost_model(CostModelKind::kFitted, *find_hardware_preset("h800"));
  // 8 experts, 4096 tokens in total: balanced vs one hot expert.
  const std::vector<std::int64_t> balanced(8, 512);
  const std::vector<std::int64_t> skewed = {3072, 147, 147, 146, 146, 146, 146, 146};
  const double tb = model->grouped_gemm(balanced, 4096, 7168, models::DType::kFp8).time_ns;
  const double ts = model->grouped_gemm(skewed, 4096, 7168, models::DType::kFp8).time_ns;
  EXPECT_GT(ts, tb);
  // Decode-sized: uneven small groups pad separately (1 + 63 rows is two tiles, 64 + 0 is one).
  const std::vector<std::int64_t> even = {64, 64, 64, 64};
  const std::vector<std::int64_t> uneven = {1, 127, 65, 63};
  EXPECT_GE(model->grouped_gemm(uneven, 4096, 7168, models::DType::kFp8).time_ns,
            model->grouped_gemm(even, 4096, 7168, models::DType::kFp8).time_ns);
}

TEST(FittedCostModel, ZeroTokenGroupsAreSkipped) {
  const auto model = make_cost_model(CostModelKind::kFitted, *find_hardware_preset("h800"));
  const std::vector<std::int64_t> two = {256, 256};
  const std::vector<std::int64_t> padded = {256, 0, 0, 256, 0, 0, 0, 0};
  const auto a = model->grouped_gemm(two, 4096, 7168, models::DType::kFp8);
  const auto b = model->grouped_gemm(padded, 4096, 7168, models::DType::kFp8);
  EXPECT_DOUBLE_EQ(a.time_ns, b.time_ns);  // empty groups: no tiles, no weights, no group overhead
  EXPECT_DOUBLE_EQ(a.bytes, b.bytes);
  EXPECT_DOUBLE_EQ(a.flops, b.flops);
  // One group of all the tokens does the same work but loads half the weights.
  const std::vector<std::int64_t> one = {512, 0};
  EXPECT_LT(model->grouped_gemm(one, 4096, 7168, models::DType::kFp8).bytes, a.bytes);
  // All empty: nothing at all.
  const std::vector<std::int64_t> none(16, 0);
  const auto z = model->grouped_gemm(none, 4096, 7168, models::DType::kFp8);
  EXPECT_EQ(z.time_ns, 0);
  EXPECT_EQ(z.bytes, 0);
  // A single zero-row GEMM too.
  EXPECT_EQ(model->gemm(0, 4096, 7168, models::DType::kFp8).time_ns, 0);
}

TEST(FittedCostModel, OtherDevicesUseTheirOwnPeaks) {
  auto hw = *find_hardware_preset("h800");
  const auto base = make_cost_model(CostModelKind::kFitted, hw)->gemm(4096, 4096, 7168, models::DType::kFp8).time_ns;
  hw.peak_fp8_flops *= 2;
  const auto faster = make_cost_model(CostModelKind::kFitted, hw)->gemm(4096, 4096, 7168, models::DType::kFp8).time_ns;
  EXPECT_LT(faster, base * 0.6);
  // h100 has the same SMs and HBM: same GEMM times.
  EXPECT_DOUBLE_EQ(make_cost_model(CostModelKind::kFitted, *find_hardware_preset("h100"))
                       ->gemm(4096, 4096, 7168, models::DType::kFp8)
                       .time_ns,
                   base);
}

TEST(FittedCostModel, MemoryOpsUseFittedBandwidth) {
  const auto hw = *find_hardware_preset("h800");
  const auto fitted = make_cost_model(CostModelKind::kFitted, hw);
  const auto roofline = make_cost_model(CostModelKind::kRoofline, hw);
  EXPECT_GT(fitted->memory_op(1e9).time_ns, roofline->memory_op(1e9).time_ns);
  EXPECT_FALSE(fitted->memory_op(1e9).compute_bound);
}

// The many-device path (one layer's expert GEMMs over an EP group) gives every device exactly
// the time of its own grouped_gemm (summed over the shapes asked for), for both registered models,
// with empty devices, ragged tile counts and more distinct tile-count tuples than the path
// remembers locally.
TEST(FittedCostModel, ManyDeviceGroupedGemmMatchesEachDeviceBitForBit) {
  const auto hw = *find_hardware_preset("h800");
  std::vector<std::int64_t> tokens;
  for (int d = 0; d < 150; ++d)
    for (int g = 0; g < 3; ++g) tokens.push_back(d % 7 == 0 ? 0 : (d * 37 + g * 101) % 900);
  for (const char* name : {"fitted", "roofline"}) {
    const auto model = make_cost_model(cost_model_kind(name), hw);
    std::vector<double> many(150, -1.0);
    const GemmShape mlp[] = {{4096, 7168}, {7168, 2048}};  // gate-up and down of an expert
    model->grouped_gemm_times(tokens, 3, std::span(mlp, 1), models::DType::kFp8, many);
    std::vector<double> both(150, -1.0);
    model->grouped_gemm_times(tokens, 3, mlp, models::DType::kFp8, both);
    for (std::size_t d = 0; d < many.size(); ++d) {
      const auto group = std::span<const std::int64_t>(tokens).subspan(d * 3, 3);
      const auto one = model->grouped_gemm(group, 4096, 7168, models::DType::kFp8);
      const auto down = model->grouped_gemm(group, 7168, 2048, models::DType::kFp8);
      EXPECT_EQ(many[d], one.time_ns) << name << " device " << d;
      EXPECT_EQ(both[d], one.time_ns + down.time_ns) << name << " device " << d;
    }
    EXPECT_EQ(many[0], 0.0) << name << ": a device with no rows costs nothing";
    EXPECT_GT(many[1], 0.0);
  }
}

// memory_op_times gives every kernel exactly memory_op's time, for both registered models.
TEST(FittedCostModel, ManyMemoryOpsMatchEachBitForBit) {
  const auto hw = *find_hardware_preset("h800");
  std::vector<double> bytes;
  for (int i = 0; i < 300; ++i) bytes.push_back(i % 11 == 0 ? 0.0 : 1.0e3 * i * i + 7.0 * i);
  for (const char* name : {"fitted", "roofline"}) {
    const auto model = make_cost_model(cost_model_kind(name), hw);
    std::vector<double> many(bytes.size(), -1.0);
    model->memory_op_times(bytes, many);
    for (std::size_t i = 0; i < bytes.size(); ++i)
      EXPECT_EQ(many[i], model->memory_op(bytes[i]).time_ns) << name << " " << i;
  }
}

}  // namespace
}  // namespace moesim::calibration
