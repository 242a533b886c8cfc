// Energy and cost (sim/energy.h): board power from a step's work, energy as the integral of
// power over the run, cost as GPU-hours times the price.
#include <gtest/gtest.h>

#include <cmath>

#include "calibration/cost_model.h"
#include "models/layer_ops.h"
#include "models/presets.h"
#include "scenarios/loader.h"
#include "sim/energy.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

struct H800 {
  models::ModelSpec model = *models::find_model_preset("deepseek-v3");
  calibration::HardwareProfile device = *calibration::find_hardware_preset("h800");
  std::unique_ptr<calibration::CostModel> cost =
      calibration::make_cost_model(calibration::CostModelKind::kFitted, device);
  PowerModel power{device, model, *cost};
};

TEST(Energy, PowerRunsFromIdleThroughMemoryBoundToTheBoardLimit) {
  const H800 h;
  ASSERT_TRUE(h.power.known());
  EXPECT_DOUBLE_EQ(h.power.board_w, 700);
  EXPECT_DOUBLE_EQ(h.power.idle_w, 80);
  EXPECT_DOUBLE_EQ(h.power.power_w({}, 1.0), 80);  // nothing to do: idle
  // HBM streaming at its full bandwidth for the whole step, tensor units idle: the memory share.
  StepWork stream;
  stream.hbm_bytes = h.power.hbm_bytes_per_s * 0.01;
  EXPECT_NEAR(h.power.power_w(stream, 0.01), 80 + 620 * kMemoryShare, 1e-9);
  EXPECT_NEAR(h.power.power_w(stream, 0.01), 300, 1e-9);  // the H200 decode figure it comes from
  // GEMMs at a large GEMM's rate for the whole step: the board's limit; twice the work cannot
  // draw more.
  StepWork gemm;
  gemm.gemm_flops = h.power.gemm_flops_per_s * 0.01;
  EXPECT_NEAR(h.power.power_w(gemm, 0.01), 700, 1e-9);
  gemm.gemm_flops *= 2;
  EXPECT_DOUBLE_EQ(h.power.power_w(gemm, 0.01), 700);
  // Half the step busy with GEMMs: halfway up the range.
  gemm.gemm_flops = h.power.gemm_flops_per_s * 0.005;
  EXPECT_NEAR(h.power.power_w(gemm, 0.01), 390, 1e-9);
  // The "busy" rates are what the cost model achieves, below the datasheet peaks.
  EXPECT_LT(h.power.gemm_flops_per_s, h.device.peak_fp8_flops);
  EXPECT_GT(h.power.gemm_flops_per_s, 0.5 * h.device.peak_fp8_flops);
  EXPECT_LT(h.power.attention_flops_per_s, h.device.peak_bf16_flops);
  // A profile without power knows no energy.
  calibration::HardwareProfile bare = h.device;
  bare.board_power_w = bare.idle_power_w = 0;
  EXPECT_FALSE(PowerModel(bare, h.model, *h.cost).known());
}

TEST(Energy, StepWorkCountsEveryActivatedWeightAndEachCacheOnce) {
  const H800 h;
  models::MemoryPlan plan;
  plan.weight_bytes = 60e9;
  plan.routed_expert_bytes = 50e9;
  const StepWorkCounter count(h.model, plan, 8, 256);
  std::vector<RankBatch> batches(8);
  batches[0].prefill_chunks.push_back({0, 1000});
  batches[0].sampled_tokens = 1;
  const StepWork w = count(batches);
  const auto p = models::count_parameters(h.model);
  const double routed = static_cast<double>(models::expert_params(h.model)) * h.model.top_k * h.model.num_moe_layers();
  const double lm_head = static_cast<double>(models::lm_head(h.model).params());
  // 2 FLOPs per activated weight and position (the LM head once, for the sampled token).
  EXPECT_DOUBLE_EQ(
      w.gemm_flops + w.expert_flops,
      2.0 * (static_cast<double>(p.activated) - lm_head - (h.model.tie_embeddings ? 0 : h.model.hidden)) * 1000 +
          2.0 * lm_head);
  EXPECT_DOUBLE_EQ(w.expert_flops, 2.0 * routed * 1000);
  EXPECT_DOUBLE_EQ(w.attention_flops, models::attention_prefill_all_layers(h.model, 0, 1000).flops);
  // 8,000 pairs over 256 slots reach all but exp(-31) of them.
  EXPECT_NEAR(w.hbm_bytes, 8 * 60e9 + models::attention_prefill_all_layers(h.model, 0, 1000).bytes, 1e-3 * 8 * 60e9);

  // Decode: each request's cache is read once; summing the lengths gives what costing each does.
  std::vector<RankBatch> decode(8);
  std::vector<std::int64_t> lengths = {1, 100, 4000, 32768};
  decode[3].decode_kv_lengths = lengths;
  decode[3].sampled_tokens = 4;
  const StepWork d = count(decode);
  double flops = 0, bytes = 0;
  for (auto l : lengths) {
    flops += models::attention_decode_all_layers(h.model, l).flops;
    bytes += models::attention_decode_all_layers(h.model, l).bytes;
  }
  EXPECT_NEAR(d.attention_flops, flops, 1e-9 * flops);
  // Four tokens reach at most 32 of the 256 slots' weights: far less than the whole expert set.
  const double expert_share = (d.hbm_bytes - bytes - 8 * 10e9) / (8 * 50e9);
  EXPECT_NEAR(expert_share, 1 - std::exp(-32.0 / 256), 1e-6);
}

TEST(Energy, SlidingWindowDecodeIsCostedPerRequest) {
  models::ModelSpec m = *models::find_model_preset("gpt-oss-20b");  // alternating 128-token windows
  models::MemoryPlan plan;
  const StepWorkCounter count(m, plan, 1, m.routed_experts);
  std::vector<RankBatch> b(1);
  b[0].decode_kv_lengths = {64, 5000};
  const StepWork w = count(b);
  EXPECT_DOUBLE_EQ(w.attention_flops, models::attention_decode_all_layers(m, 64).flops +
                                          models::attention_decode_all_layers(m, 5000).flops);
}

// Over a whole run: energy is the integral of each step's power over its GPUs plus idle power
// for the rest of every GPU's time; cost is GPU-hours times the price.
TEST(Energy, RunEnergyIsTheIntegralOfPowerAndCostIsGpuHoursTimesPrice) {
  SimulationConfig c = testing::dsv3_config(2, 300, 40, 600, 40);
  c.cost.gpu_hour_usd = 2.0;
  const SimulationResult r = simulate(c);
  const Summary& s = r.summary;
  ASSERT_TRUE(s.energy.known);
  double busy = 0, busy_s = 0;
  for (const StepRecord& st : r.steps) {
    EXPECT_GE(st.power_w, 80);
    EXPECT_LE(st.power_w, 700);
    busy += st.power_w * st.duration_ns * 1e-9 * 16;
    busy_s += st.duration_ns * 1e-9 * 16;
  }
  const double gpu_s = 16 * s.makespan_s;
  EXPECT_LE(busy_s, gpu_s * (1 + 1e-9));
  EXPECT_NEAR(s.energy.joules, busy + 80 * (gpu_s - busy_s), 1e-6 * s.energy.joules);
  EXPECT_NEAR(s.energy.mean_power_w_per_gpu, s.energy.joules / gpu_s, 1e-9);
  EXPECT_NEAR(s.energy.joules_per_output_token * static_cast<double>(s.output_tokens), s.energy.joules, 1e-6);
  EXPECT_NEAR(s.energy.joules_per_request * static_cast<double>(s.completed), s.energy.joules, 1e-6);
  ASSERT_TRUE(s.cost.priced);
  EXPECT_DOUBLE_EQ(s.cost.gpu_hours, 16 * s.makespan_s / 3600);
  EXPECT_DOUBLE_EQ(s.cost.usd, s.cost.gpu_hours * 2.0);
  EXPECT_NEAR(s.cost.usd_per_million_output_tokens, s.cost.usd / static_cast<double>(s.output_tokens) * 1e6, 1e-12);
  // Electricity on top: the kWh at the facility's PUE.
  c.cost.kwh_usd = 0.1;
  c.cost.pue = 1.5;
  const Summary e = simulate(c).summary;
  EXPECT_NEAR(e.cost.usd, e.cost.gpu_hours * 2.0 + e.energy.joules / 3.6e6 * 1.5 * 0.1, 1e-12);
  // No price: no cost.
  c.cost = {};
  EXPECT_FALSE(simulate(c).summary.cost.priced);
}

// Prefill keeps the tensor units busy; decode of a small batch mostly streams weights. And a
// larger decode batch spreads the same weight reads over more tokens: less energy per token.
TEST(Energy, PrefillDrawsMoreThanDecodeAndBatchingSavesEnergyPerToken) {
  SimulationConfig prefill = testing::dsv3_config(2, 64, 1000, 4000, 1);
  SimulationConfig decode = testing::dsv3_config(2, 64, 1000, 16, 400);
  const SimulationResult p = simulate(prefill), d = simulate(decode);
  double pmax = 0, dmin = 1e9;
  for (const auto& s : p.steps) pmax = std::max(pmax, s.power_w);
  for (const auto& s : d.steps)
    if (s.prefill_tokens == 0) dmin = std::min(dmin, s.power_w);
  // (This prefill spends half its step in the all-to-alls of two H800 nodes, tensor units idle.)
  EXPECT_GT(pmax, 300);
  EXPECT_GT(pmax, dmin + 100);
  SimulationConfig big = testing::dsv3_config(2, 1024, 1000, 16, 400);
  const double small_j = d.summary.energy.joules_per_output_token;
  const double big_j = simulate(big).summary.energy.joules_per_output_token;
  EXPECT_LT(big_j, 0.5 * small_j);
}

TEST(Energy, ScenarioPricingIsCheckedWhereItIsWritten) {
  const std::string base =
      "model: tiny-moe\nhardware: h800\ncluster: {nodes: 1}\ndeployment: {colocated: {ranks: 8}}\n";
  const auto error = [&](const std::string& tail) {
    try {
      scenarios::load_scenario_string(base + tail, "p.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("pricing: {kwh_usd: 0.1}\n"), "p.yaml:5:10: pricing: missing required key 'gpu_hour_usd'");
  EXPECT_EQ(error("pricing: {gpu_hour_usd: -2}\n"),
            "p.yaml:5:25: pricing.gpu_hour_usd: expected a price above 0, got '-2'");
  EXPECT_EQ(error("pricing: {gpu_hour_usd: 2, pue: 0.9}\n"),
            "p.yaml:5:33: pricing.pue: expected a power usage effectiveness of at least 1");
  EXPECT_EQ(error("pricing: {gpu_hour: 2}\n"),
            "p.yaml:5:11: pricing.gpu_hour: unknown key 'gpu_hour'; did you mean 'gpu_hour_usd'?");
  const auto s =
      scenarios::load_scenario_string(base + "pricing: {gpu_hour_usd: 2.5, kwh_usd: 0.08, pue: 1.2}\n", "p.yaml");
  EXPECT_DOUBLE_EQ(s.pricing.gpu_hour_usd, 2.5);
  EXPECT_DOUBLE_EQ(s.pricing.kwh_usd, 0.08);
  EXPECT_DOUBLE_EQ(s.pricing.pue, 1.2);
}

}  // namespace
}  // namespace moesim::sim
