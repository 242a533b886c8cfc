// Attention-FFN disaggregation (sim/afd_step.h): every row sent to the expert ranks is computed
// there and comes back; with one micro-batch every transfer is exposed, and the ping-pong
// pipeline of several hides them; each side's memory holds its half of every layer.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <cmath>
#include <numeric>
#include <string>

#include "models/memory.h"
#include "models/presets.h"
#include "scenarios/loader.h"
#include "sim/deployment.h"
#include "sim/simulation.h"

namespace moesim::sim {
namespace {

// DeepSeek-V3 on two HGX H800 nodes as one colocated instance: 4 attention ranks and 12 expert
// ranks (EP12 with 8 redundant experts, so that 264 slots divide), prompts and decode alike
// through the ping-pong pipeline.
std::string afd_yaml(int micro_batches, const std::string& extra_pool = "", int requests = 48) {
  return "model: deepseek-v3\n"
         "hardware: h800\n"
         "cluster: {preset: hgx, nodes: 2}\n"
         "deployment:\n"
         "  colocated:\n"
         "    ranks: 16\n"
         "    afd: {attention_ranks: 4, micro_batches: " +
         std::to_string(micro_batches) +
         "}\n"
         "    moe: {placement: eplb, redundant_experts: 8, comm: low-latency}\n"
         "    batch: {max_running_per_rank: 64, token_budget_per_rank: 1024}\n" +
         extra_pool +
         "workload:\n"
         "  requests: " +
         std::to_string(requests) +
         "\n"
         "  arrivals: {process: closed-loop, concurrency: 256}\n"
         "  input_tokens: {dist: fixed, value: 256}\n"
         "  output_tokens: {dist: fixed, value: 24}\n";
}

SimulationResult run(const std::string& yaml) {
  const scenarios::Scenario s = scenarios::load_scenario_string(yaml, "afd.yaml");
  return simulate(scenarios::simulation_config(s));
}

std::string afd_error(const std::string& yaml) {
  return moesim::testing::thrown_message<std::exception>([&] { scenarios::load_scenario_string(yaml, "afd.yaml"); });
}

double transfer_ns(const LayerBreakdown& b) {
  double t = 0;
  for (const auto& layer : b.layer_ns)
    t += layer[static_cast<std::size_t>(Phase::kDispatch)] + layer[static_cast<std::size_t>(Phase::kCombine)];
  return t;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

TEST(AttentionFfnDisaggregation, EveryRowSentToTheExpertsIsComputedAndComesBack) {
  const SimulationResult r = run(afd_yaml(3));
  ASSERT_EQ(r.pools.size(), 1u);
  const PoolResult& p = r.pools[0];
  EXPECT_EQ(p.afd_attention_ranks, 4);
  EXPECT_EQ(p.afd_expert_ranks, 12);
  EXPECT_EQ(r.summary.completed, 48);
  const models::ModelSpec model = *models::find_model_preset("deepseek-v3");
  std::int64_t tokens = 0;
  for (const auto& st : r.steps) tokens += st.decode_tokens + st.prefill_tokens;
  const std::int64_t moe_layers = model.num_moe_layers();
  ASSERT_GT(tokens, 0);
  // Each token of every MoE layer: k routed pairs and one shared-expert row out, computed, back.
  const std::int64_t rows = tokens * moe_layers * (model.top_k + 1);
  EXPECT_EQ(p.breakdown.afd_rows_sent, rows);
  EXPECT_EQ(p.breakdown.afd_rows_processed, rows);
  EXPECT_EQ(p.breakdown.afd_rows_returned, rows);
  EXPECT_EQ(p.breakdown.tokens_routed, tokens * moe_layers * model.top_k);
  EXPECT_EQ(p.breakdown.tokens_combined, p.breakdown.tokens_routed);
  EXPECT_GT(p.breakdown.dispatch_bytes, 0);
  EXPECT_GT(p.breakdown.combine_bytes, 0);
  // Both sides did work, and neither was busier than the whole step.
  EXPECT_GT(p.afd_attention_utilisation, 0.05);
  EXPECT_LE(p.afd_attention_utilisation, 1.0);
  EXPECT_GT(p.afd_expert_utilisation, 0.05);
  EXPECT_LE(p.afd_expert_utilisation, 1.0);
  // The layers' wall times and the LM heads make up the steps' GPU time.
  EXPECT_LE(sum(p.breakdown.wall_ns), p.breakdown.afd_span_ns + 1.0);
  for (std::size_t l = 0; l < p.breakdown.wall_ns.size(); ++l)
    EXPECT_LE(p.breakdown.exposed_comm_ns[l], p.breakdown.wall_ns[l] + 1e-6) << "layer " << l;
}

TEST(AttentionFfnDisaggregation, OneMicroBatchExposesEveryTransferAndThePingPongHidesThem) {
  const SimulationResult one = run(afd_yaml(1));
  const SimulationResult three = run(afd_yaml(3));
  const LayerBreakdown& b1 = one.pools[0].breakdown;
  const LayerBreakdown& b3 = three.pools[0].breakdown;
  // One micro-batch: while its tokens travel, neither side has anything to compute.
  const double t1 = transfer_ns(b1);
  ASSERT_GT(t1, 0);
  EXPECT_NEAR(sum(b1.exposed_comm_ns), t1, 1e-9 * t1);
  // Three: the transfers of one overlap the other micro-batches' compute.
  EXPECT_LT(sum(b3.exposed_comm_ns), 0.5 * transfer_ns(b3));
  // And each side is kept busier (its utilisation in a same-length run is higher).
  EXPECT_GT(three.pools[0].afd_attention_utilisation, one.pools[0].afd_attention_utilisation);
  EXPECT_GT(three.pools[0].afd_expert_utilisation, one.pools[0].afd_expert_utilisation);
}

TEST(AttentionFfnDisaggregation, EachSideHoldsItsHalfOfEveryLayer) {
  const models::ModelSpec m = *models::find_model_preset("deepseek-v3");
  models::MemoryOptions o;
  o.ep = 12;
  o.redundant_experts = 8;
  o.capacity_bytes = 80e9;
  o.token_budget_per_rank = 1024;
  const models::MemoryPlan whole = models::plan_rank_memory(m, o);
  o.side = models::MemorySide::kAttention;
  const models::MemoryPlan attention = models::plan_rank_memory(m, o);
  o.side = models::MemorySide::kExperts;
  const models::MemoryPlan experts = models::plan_rank_memory(m, o);
  EXPECT_EQ(attention.routed_expert_bytes, 0.0);
  EXPECT_DOUBLE_EQ(experts.routed_expert_bytes, whole.routed_expert_bytes);
  EXPECT_GT(attention.kv_capacity_tokens, 3 * whole.kv_capacity_tokens);  // no experts: far more KV
  EXPECT_EQ(experts.kv_capacity_tokens, 0);                               // no attention, no KV
  EXPECT_DOUBLE_EQ(experts.kv_bytes_per_token, 0.0);
  // The two sides hold the whole model's weights between them, the embedding once each side
  // needs it: attention + experts = whole (the routers only on the attention side).
  EXPECT_NEAR(attention.weight_bytes + experts.weight_bytes, whole.weight_bytes, 1e-6 * whole.weight_bytes);
}

TEST(AttentionFfnDisaggregation, LoaderAndDeploymentErrors) {
  EXPECT_EQ(afd_error(afd_yaml(3, "    overlap: {scheme: two-batch}\n")),
            "afd.yaml:7:5: deployment.colocated.afd: the ping-pong pipeline replaces the overlap schemes: leave "
            "overlap at none");
  std::string yaml = afd_yaml(3);
  yaml.replace(yaml.find("attention_ranks: 4"), 18, "attention_ranks: 16");
  EXPECT_EQ(afd_error(yaml),
            "afd.yaml:7:11: deployment.colocated.afd.attention_ranks: attention_ranks 16 leaves none of the 16 ranks "
            "for the experts");
  EXPECT_EQ(afd_error(afd_yaml(3, "    attention: {dp: 8}\n")),
            "afd.yaml:10:17: deployment.colocated.attention.dp: attention dp 8 x tp 1 = 8 does not match the 4 "
            "attention ranks (afd)");
  // The same rules below the loader, for configurations built in code.
  const scenarios::Scenario s = scenarios::load_scenario_string(afd_yaml(3), "afd.yaml");
  SimulationConfig c = scenarios::simulation_config(s);
  c.deployment.colocated.pipeline_stages = 2;
  c.deployment.colocated.attention_dp = 2;
  try {
    simulate(c);
    FAIL() << "no error";
  } catch (const DeploymentError& e) {
    EXPECT_EQ(std::string(e.what()),
              "colocated pool: afd: pipeline stages are not modelled with attention-FFN disaggregation");
  }
}

}  // namespace
}  // namespace moesim::sim
