// The grouped GEMM at decode shapes (8-64 rows per expert), far below the 256+ rows of the
// DeepGEMM rows it was fitted to: there it must be the memory-bound regime its physics gives —
// every non-empty expert's weights streamed once — bounded below by the roofline (weights and
// activations at the spec-sheet HBM bandwidth, FLOPs at the peak) and nearly flat in the rows,
// with the fitted per-kernel and per-group costs on top.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/dtype.h"

namespace moesim::calibration {
namespace {

TEST(GroupedGemmSmallM, IsTheWeightStreamOfItsExpertsAboveTheRoofline) {
  const auto hw = *find_hardware_preset("h800");
  const auto fitted = make_cost_model(CostModelKind::kFitted, hw);
  const auto roofline = make_cost_model(CostModelKind::kRoofline, hw);
  // DeepSeek-V3's expert gate/up projection: n = 2 x 2048, k = 7168, FP8 weights.
  const std::int64_t n = 4096, k = 7168;
  double previous = 0;
  for (const int groups : {8, 32}) {
    for (const std::int64_t rows : {8, 16, 32, 64}) {
      const std::vector<std::int64_t> tokens(static_cast<std::size_t>(groups), rows);
      const double t = fitted->grouped_gemm(tokens, n, k, models::DType::kFp8).time_ns;
      const double bound = roofline->grouped_gemm(tokens, n, k, models::DType::kFp8).time_ns;
      const double weights_ns = groups * static_cast<double>(n) * k / hw.hbm_bytes_per_s * 1e9;
      std::printf("  %2d experts x %2lld rows: %6.1f us (roofline %6.1f, weights alone %6.1f)\n", groups,
                  static_cast<long long>(rows), t * 1e-3, bound * 1e-3, weights_ns * 1e-3);
      EXPECT_GE(t, bound);        // never faster than the spec sheet
      EXPECT_LE(t, 1.6 * bound);  // and memory-bound: the fitted overheads on top, no more
      if (rows > 8) {
        EXPECT_LT(t, previous * 1.08) << "rows should barely matter while the weights dominate";
        EXPECT_GE(t, previous);
      }
      previous = t;
    }
  }
}

}  // namespace
}  // namespace moesim::calibration
