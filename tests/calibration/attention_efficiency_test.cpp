// The attention kernels' efficiency (calibration/attention_efficiency.h): the prefill curve
// refitted from the published FlashAttention-3 table reproduces the checked-in parameters and
// every row, and MLA prefill chunks take the cheaper of the expanded and absorbed paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/attention_efficiency.h"
#include "calibration/cost_model.h"
#include "models/layer_ops.h"
#include "models/presets.h"

namespace moesim::calibration {
namespace {

std::vector<AttentionSpeedRow> fa3_rows() {
  std::ifstream in(std::string(MOESIM_SOURCE_DIR) + "/calibration/data/flashattention3_h100.csv");
  std::vector<AttentionSpeedRow> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("seqlen", 0) == 0) continue;
    AttentionSpeedRow r;
    char comma = 0;
    std::istringstream(line) >> r.seqlen >> comma >> r.tflops;
    rows.push_back(r);
  }
  return rows;
}

TEST(AttentionEfficiency, RefitReproducesTheCheckedInParametersAndEveryRow) {
  const auto rows = fa3_rows();
  ASSERT_EQ(rows.size(), 6u);
  const double peak = 989.0;  // H100 SXM5 dense BF16 TFLOPS (calibration/profiles/h100.yaml)
  const AttentionFitParams fit = fit_prefill_attention(rows, peak);
  const AttentionFitParams used = flash_attention_fit();
  EXPECT_NEAR(fit.prefill_fraction, used.prefill_fraction, 0.0015);
  EXPECT_NEAR(fit.prefill_half_len, used.prefill_half_len, 2.0);
  double worst = 0;
  for (const auto& r : rows) {
    const double model = peak * prefill_attention_fraction(used, r.seqlen);
    const double error = (model - r.tflops) / r.tflops;
    std::printf("  FA3 causal hdim 128, seqlen %5.0f: published %3.0f TFLOPS, model %5.1f (%+.1f %%)\n", r.seqlen,
                r.tflops, model, 100 * error);
    worst = std::max(worst, std::abs(error));
  }
  EXPECT_LT(worst, 0.035);
}

models::ModelSpec deepseek() { return *models::find_model_preset("deepseek-v3"); }

// One new token after 4,096 cached ones: engines run it as a decode token would (absorbed MLA),
// not by expanding 4,096 cached latents into per-head K/V.
TEST(AttentionEfficiency, AShortExtendAfterALongPrefixCostsAboutADecodeStep) {
  const auto hw = *find_hardware_preset("h100");
  const auto cost = make_cost_model(CostModelKind::kFitted, hw);
  const auto m = deepseek();
  const std::vector<PrefillChunk> extend = {{4096, 1}};
  const std::vector<std::int64_t> decode = {4097};
  const double extend_ns = cost->attention_prefill(m, extend).time_ns;
  const double decode_ns = cost->attention_decode(m, decode).time_ns;
  const auto expanded = models::attention_prefill_core(m, 4096, 1);
  std::printf("  1 token after 4096: %.1f us (decode %.1f us; the expanded path's %.2f GFLOP would take %.0f us)\n",
              extend_ns * 1e-3, decode_ns * 1e-3, expanded.flops * 1e-9,
              expanded.flops / (hw.peak_bf16_flops * 0.5) * 1e6);
  EXPECT_LT(extend_ns, 1.5 * decode_ns);
  // A whole prompt from scratch stays on the expanded path, which is cheaper there.
  const std::vector<PrefillChunk> prompt = {{0, 4096}};
  const auto full = cost->attention_prefill(m, prompt);
  EXPECT_DOUBLE_EQ(full.flops, models::attention_prefill_core(m, 0, 4096).flops);
}

// Longer prompts run the kernel more efficiently: per unit of work, a 4K prompt costs less than
// a 512-token one, by the published ratio of their speeds.
TEST(AttentionEfficiency, PrefillRateGrowsWithTheSequenceAsPublished) {
  const auto hw = *find_hardware_preset("h100");
  const auto cost = make_cost_model(CostModelKind::kFitted, hw);
  models::ModelSpec m = *models::find_model_preset("qwen3-235b-a22b");
  const auto rate = [&](std::int64_t len) {
    const std::vector<PrefillChunk> c = {{0, len}};
    const auto k = cost->attention_prefill(m, c);
    return k.flops / (k.time_ns - cost->launch_overhead_ns());
  };
  const double ratio = rate(4096) / rate(512);
  EXPECT_NEAR(ratio, 579.0 / 292.0, 0.06 * 579.0 / 292.0);
}

}  // namespace
}  // namespace moesim::calibration
