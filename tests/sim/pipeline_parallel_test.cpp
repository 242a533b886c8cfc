// Pipeline-parallel stages: the layer split, memory per stage, the pipelined step and a full run.
#include <gtest/gtest.h>

#include <memory>

#include "calibration/cost_model.h"
#include "models/presets.h"
#include "sim/deployment.h"
#include "sim/pipeline_step.h"
#include "sim/simulation.h"
#include "tests/sim/sim_test_util.h"

namespace moesim::sim {
namespace {

TEST(PipelineStages, LayersSplitLikeVllm) {
  // vLLM's get_pp_indices: floor(layers / pp) each, the remainder to the stages before the last.
  const std::vector<std::pair<int, int>> four = {{0, 15}, {15, 30}, {30, 46}, {46, 61}};
  EXPECT_EQ(split_layers(61, 4), four);
  const std::vector<std::pair<int, int>> three = {{0, 11}, {11, 22}, {22, 32}};
  EXPECT_EQ(split_layers(32, 3), three);
  const std::vector<std::pair<int, int>> one = {{0, 32}};
  EXPECT_EQ(split_layers(32, 1), one);
}

// Mixtral-8x7B on H100 nodes: `stages` stages of one 8-GPU node each (DP 8, EP 8 per stage).
struct Pipeline {
  explicit Pipeline(int stages)
      : model(*models::find_model_preset("mixtral-8x7b")), hw(*calibration::find_hardware_preset("h100")), cluster([&] {
          topology::ClusterConfig c;
          c.nodes = stages;
          return c;
        }()) {
    DeploymentConfig d;
    d.colocated.ranks = 8 * stages;
    d.colocated.pipeline_stages = stages;
    d.colocated.attention_dp = d.colocated.moe_ep = 8;
    deployment = std::make_unique<Deployment>(d, model, hw, cluster);
    cost = calibration::make_cost_model(calibration::CostModelKind::kRoofline, hw);
    workloads::RoutingConfig rc;
    routing = workloads::make_routing_model(rc, model.routed_experts);
    step = std::make_unique<InstanceStep>(model, deployment->pools()[0], 0, cluster, *cost, *routing);
  }
  Duration run(int requests_per_group, LayerBreakdown& lb) {
    std::vector<RankBatch> b(8);
    for (auto& r : b) {
      r.decode_kv_lengths.assign(static_cast<std::size_t>(requests_per_group), 2000);
      r.sampled_tokens = requests_per_group;
    }
    workloads::Rng rng(3);
    return step->run(b, 0, rng, lb, Time::zero());
  }
  models::ModelSpec model;
  calibration::HardwareProfile hw;
  topology::Cluster cluster;
  std::unique_ptr<Deployment> deployment;
  std::unique_ptr<calibration::CostModel> cost;
  std::unique_ptr<workloads::RoutingModel> routing;
  std::unique_ptr<InstanceStep> step;
};

TEST(PipelineStages, EachStageHoldsHalfTheLayers) {
  Pipeline one(1), two(2);
  const auto& a = one.deployment->pools()[0].memory;
  const auto& b = two.deployment->pools()[0].memory;
  EXPECT_NEAR(b.routed_expert_bytes, a.routed_expert_bytes / 2, 1.0);
  EXPECT_DOUBLE_EQ(b.kv_bytes_per_token, a.kv_bytes_per_token / 2);
  EXPECT_EQ(two.deployment->pools()[0].stage_layers.back(), std::make_pair(16, 32));
}

TEST(PipelineStages, OneRequestCrossesEveryStageInTurn) {
  // One request: nothing to overlap, so the step is the whole model plus the hand-off.
  Pipeline one(1), two(2);
  LayerBreakdown a, b;
  std::vector<RankBatch> single(8);
  single[0].decode_kv_lengths = {2000};
  single[0].sampled_tokens = 1;
  workloads::Rng r1(3), r2(3);
  const Duration d1 = one.step->run(single, 0, r1, a, Time::zero());
  const Duration d2 = two.step->run(single, 0, r2, b, Time::zero());
  EXPECT_GT(b.pipeline_send_ns, 0.0);
  EXPECT_GE(d2.count_ns(), d1.count_ns());
  EXPECT_NEAR(static_cast<double>(d2.count_ns()), static_cast<double>(d1.count_ns()) + b.pipeline_send_ns,
              0.05 * static_cast<double>(d1.count_ns()));
}

TEST(PipelineStages, FullPipelineOverlapsMicroBatches) {
  // Many requests: two micro-batches keep both stages busy, so the step (each request's time
  // per token) is close to half the single-stage step, plus the hand-off.
  Pipeline one(1), two(2);
  LayerBreakdown a, b;
  const double d1 = static_cast<double>(one.run(256, a).count_ns());
  const double d2 = static_cast<double>(two.run(256, b).count_ns());
  EXPECT_LT(d2, 0.75 * d1);
  EXPECT_GT(d2, 0.45 * d1);
  // Every layer is costed once per micro-batch; the per-layer work sums over both stages.
  EXPECT_EQ(b.tokens_routed, a.tokens_routed);
}

TEST(PipelineStages, RunCompletesEveryRequest) {
  auto c = testing::tiny_config(80);
  c.cluster.nodes = 2;
  c.deployment.colocated.ranks = 16;
  c.deployment.colocated.pipeline_stages = 2;
  const auto r = simulate(c);
  EXPECT_EQ(r.summary.completed, 80);
  EXPECT_EQ(r.summary.output_tokens, 80 * 20);
  EXPECT_GT(r.pools[0].pipeline_send_ns_per_step, 0.0);
  EXPECT_EQ(r.summary.gpus, 16);
}

}  // namespace
}  // namespace moesim::sim
