// Attention tensor parallelism and MoE tensor parallelism in the step model, the deployment's
// checks and memory per rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "calibration/cost_model.h"
#include "models/layer_ops.h"
#include "models/presets.h"
#include "sim/deployment.h"
#include "sim/simulation.h"
#include "sim/step_model.h"
#include "topology/collectives.h"

namespace moesim::sim {
namespace {

double phase(const LayerBreakdown& b, std::size_t layer, Phase p) { return b.layer_ns[layer][static_cast<int>(p)]; }

// Mixtral-8x7B on one 8 x H100 node with the given degrees, roofline costs, uniform routing.
struct Node {
  Node(int dp, int tp, int ep, int moe_tp, const char* routing_model = "uniform")
      : model(*models::find_model_preset("mixtral-8x7b")),
        hw(*calibration::find_hardware_preset("h100")),
        cluster(topology::ClusterConfig{}) {
    DeploymentConfig d;
    d.colocated.ranks = 8;
    d.colocated.attention_dp = dp;
    d.colocated.attention_tp = tp;
    d.colocated.moe_ep = ep;
    d.colocated.moe_tp = moe_tp;
    deployment = std::make_unique<Deployment>(d, model, hw, cluster);
    layout = std::make_unique<InstanceLayout>(deployment->pools()[0], 0);
    cost = calibration::make_cost_model(calibration::CostModelKind::kRoofline, hw);
    workloads::RoutingConfig rc;
    rc.model = workloads::routing_model_kind(routing_model);
    rc.hot_experts = 1;
    rc.hot_fraction = 0.4;
    routing = workloads::make_routing_model(rc, model.routed_experts);
    step = std::make_unique<StepModel>(model, *layout, cluster, *cost, *routing, OverlapConfig{});
  }
  // `requests` decode requests of KV `kv` on each attention group.
  Duration run(int requests, std::int64_t kv, LayerBreakdown& lb) {
    std::vector<RankBatch> b(static_cast<std::size_t>(layout->attention_dp()));
    for (auto& r : b) {
      r.decode_kv_lengths.assign(static_cast<std::size_t>(requests), kv);
      r.sampled_tokens = requests;
    }
    workloads::Rng rng(5);
    return step->run(b, 0, rng, lb);
  }
  models::ModelSpec model;
  calibration::HardwareProfile hw;
  topology::Cluster cluster;
  std::unique_ptr<Deployment> deployment;
  std::unique_ptr<InstanceLayout> layout;
  std::unique_ptr<calibration::CostModel> cost;
  std::unique_ptr<workloads::RoutingModel> routing;
  std::unique_ptr<StepModel> step;
};

// The faster of NCCL's ring and tree schedules for the collective.
double nccl_ns(const Node& n, std::vector<int> devices, topology::CollectiveKind kind, double bytes) {
  const double ring = topology::collective(n.cluster, devices, kind, bytes,
                                           {topology::CollectiveAlgorithm::kRing, &topology::analytic_fidelity()})
                          .duration_ns;
  const double tree = topology::collective(n.cluster, devices, kind, bytes,
                                           {topology::CollectiveAlgorithm::kTree, &topology::analytic_fidelity()})
                          .duration_ns;
  return std::min(ring, tree);
}

TEST(AttentionTensorParallel, HalvesPerRankAttentionAndAddsItsCollectivesToTheBreakdown) {
  // The same 64 requests per attention group (KV 8000: memory-bound), served by one rank or
  // split over two.
  Node tp1(8, 1, 8, 1), tp2(4, 2, 8, 1);
  LayerBreakdown a, b;
  tp1.run(64, 8000, a);
  tp2.run(64, 8000, b);
  const double ratio = phase(b, 5, Phase::kAttention) / phase(a, 5, Phase::kAttention);
  EXPECT_NEAR(ratio, 0.5, 0.03);
  EXPECT_EQ(phase(a, 5, Phase::kTpComm), 0.0);
  // Each MoE layer: a reduce-scatter of the group's 64 hidden states after attention, an
  // all-gather after the combine, on the pair of GPUs {0, 1} (NVLink).
  const double bytes = 64.0 * tp2.model.hidden * 2;
  const double expected = nccl_ns(tp2, {0, 1}, topology::CollectiveKind::kReduceScatter, bytes) +
                          nccl_ns(tp2, {0, 1}, topology::CollectiveKind::kAllGather, bytes);
  EXPECT_NEAR(phase(b, 5, Phase::kTpComm), expected, 1.0);
  EXPECT_GT(expected, 0);
  // The collectives hold the compute stream: they are exposed communication.
  EXPECT_GE(b.exposed_comm_ns[5], expected - 1.0);
  // Each rank routes its half of its group's tokens: the same pairs in total.
  EXPECT_EQ(b.tokens_routed, 4 * 64 * tp2.model.top_k * tp2.model.num_moe_layers());
}

TEST(AttentionTensorParallel, DenseLayersAllReduceTwice) {
  // DeepSeek-V3's three dense layers under attention TP 4 on 4 nodes (EP32).
  const auto model = *models::find_model_preset("deepseek-v3");
  const auto hw = *calibration::find_hardware_preset("h800");
  topology::ClusterConfig cc;
  cc.nodes = 4;
  const topology::Cluster cluster(cc);
  DeploymentConfig d;
  d.colocated.ranks = d.colocated.moe_ep = 32;
  d.colocated.attention_dp = 8;
  d.colocated.attention_tp = 4;
  const Deployment dep(d, model, hw, cluster);
  const InstanceLayout layout(dep.pools()[0], 0);
  const auto cost = calibration::make_cost_model(calibration::CostModelKind::kRoofline, hw);
  workloads::RoutingConfig rc;
  const auto routing = workloads::make_routing_model(rc, model.routed_experts);
  StepModel step(model, layout, cluster, *cost, *routing, OverlapConfig{});
  std::vector<RankBatch> b(8);
  for (auto& r : b) {
    r.decode_kv_lengths.assign(32, 2000);
    r.sampled_tokens = 32;
  }
  workloads::Rng rng(1);
  LayerBreakdown lb;
  step.run(b, 0, rng, lb);
  const double bytes = 32.0 * model.hidden * 2;
  double ring = topology::collective(cluster, {0, 1, 2, 3}, topology::CollectiveKind::kAllReduce, bytes).duration_ns;
  double tree = topology::collective(cluster, {0, 1, 2, 3}, topology::CollectiveKind::kAllReduce, bytes,
                                     {topology::CollectiveAlgorithm::kTree, &topology::analytic_fidelity()})
                    .duration_ns;
  EXPECT_NEAR(phase(lb, 0, Phase::kTpComm), 2 * std::min(ring, tree), 1.0);
  EXPECT_EQ(phase(lb, 0, Phase::kDispatch), 0.0);
  EXPECT_GT(phase(lb, 3, Phase::kDispatch), 0.0);
}

TEST(MoeTensorParallel, GathersInsteadOfDispatchingAndStaysBalancedUnderSkew) {
  // EP8 (one expert per GPU) against MoE TP8 (an eighth of every expert per GPU), with attention
  // DP 8 either way, 128 decode requests per GPU.
  Node ep(8, 1, 8, 1), tp(8, 1, 1, 8), ep_hot(8, 1, 8, 1, "hot-set"), tp_hot(8, 1, 1, 8, "hot-set");
  LayerBreakdown a, b, c, d;
  ep.run(128, 1000, a);
  tp.run(128, 1000, b);
  ep_hot.run(128, 1000, c);
  tp_hot.run(128, 1000, d);
  // EP moves the tokens by all-to-all; MoE TP all-gathers them and reduce-scatters the result.
  EXPECT_GT(phase(a, 5, Phase::kDispatch), 0.0);
  EXPECT_EQ(phase(a, 5, Phase::kTpComm), 0.0);
  EXPECT_EQ(phase(b, 5, Phase::kDispatch), 0.0);
  EXPECT_EQ(b.dispatch_bytes, 0.0);
  const double stage_bytes = 8 * 128.0 * tp.model.hidden * 2;
  std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_NEAR(phase(b, 5, Phase::kTpComm),
              nccl_ns(tp, all, topology::CollectiveKind::kAllGather, stage_bytes) +
                  nccl_ns(tp, all, topology::CollectiveKind::kReduceScatter, stage_bytes),
              1.0);
  EXPECT_EQ(a.tokens_routed, b.tokens_routed);
  // A hot expert (40 % of the assignments) makes its EP rank the straggler; under MoE TP every
  // rank computes a slice of it, so the GEMM barely moves.
  EXPECT_GT(phase(c, 5, Phase::kExpertGemm), 1.5 * phase(a, 5, Phase::kExpertGemm));
  EXPECT_LT(phase(d, 5, Phase::kExpertGemm), 1.1 * phase(b, 5, Phase::kExpertGemm));
}

TEST(TensorParallelMemory, KvPerRankFollowsTheShard) {
  Node dp8(8, 1, 8, 1), tp2(4, 2, 8, 1), tp8(1, 8, 1, 8);
  // Mixtral: 32 layers x 8 KV heads x 128 x K and V x BF16 per token; TP2 keeps 4 heads, TP8 one.
  const double full = 32.0 * 8 * 128 * 2 * 2;
  EXPECT_DOUBLE_EQ(dp8.deployment->pools()[0].memory.kv_bytes_per_token, full);
  EXPECT_DOUBLE_EQ(tp2.deployment->pools()[0].memory.kv_bytes_per_token, full / 2);
  EXPECT_DOUBLE_EQ(tp8.deployment->pools()[0].memory.kv_bytes_per_token, full / 8);
  EXPECT_LT(tp8.deployment->pools()[0].memory.weight_bytes, dp8.deployment->pools()[0].memory.weight_bytes);
  // The scheduler of a TP group holds one cache of that many tokens per group.
  EXPECT_GT(tp8.deployment->pools()[0].memory.kv_capacity_tokens,
            7 * dp8.deployment->pools()[0].memory.kv_capacity_tokens);
}

TEST(TensorParallelMemory, MlaLatentIsReplicatedOverTheGroup) {
  const auto model = *models::find_model_preset("deepseek-v3");
  const auto hw = *calibration::find_hardware_preset("h800");
  topology::ClusterConfig cc;
  cc.nodes = 4;
  const topology::Cluster cluster(cc);
  DeploymentConfig dp, tp;
  dp.colocated.ranks = dp.colocated.attention_dp = dp.colocated.moe_ep = 32;
  tp.colocated = dp.colocated;
  tp.colocated.attention_dp = 4;
  tp.colocated.attention_tp = 8;
  const Deployment a(dp, model, hw, cluster), b(tp, model, hw, cluster);
  EXPECT_DOUBLE_EQ(a.pools()[0].memory.kv_bytes_per_token, 61.0 * (512 + 64) * 2);
  EXPECT_DOUBLE_EQ(b.pools()[0].memory.kv_bytes_per_token, a.pools()[0].memory.kv_bytes_per_token);
  EXPECT_GT(b.pools()[0].memory.kv_capacity_tokens, a.pools()[0].memory.kv_capacity_tokens);
}

std::string deployment_error(DeploymentConfig d, const char* model_name, int nodes = 1) {
  const auto model = *models::find_model_preset(model_name);
  const auto hw = *calibration::find_hardware_preset("h100");
  topology::ClusterConfig cc;
  cc.nodes = nodes;
  const topology::Cluster cluster(cc);
  try {
    Deployment dep(d, model, hw, cluster);
  } catch (const DeploymentError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(TensorParallelDeployment, ErrorsNameTheDegrees) {
  DeploymentConfig d;
  d.colocated.ranks = 8;
  d.colocated.attention_dp = 4;
  d.colocated.attention_tp = 1;
  d.colocated.moe_ep = 8;
  EXPECT_EQ(deployment_error(d, "mixtral-8x7b"), "colocated pool: attention dp 4 x tp 1 = 4 does not match ranks 8");
  d.colocated.ranks = 6;
  d.colocated.attention_dp = 2;
  d.colocated.attention_tp = 3;
  d.colocated.moe_ep = 6;
  EXPECT_EQ(deployment_error(d, "mixtral-8x7b"),
            "colocated pool: attention tp 3 does not divide the 32 attention heads of mixtral-8x7b");
  d.colocated.ranks = 8;
  d.colocated.attention_dp = 8;
  d.colocated.attention_tp = 1;
  d.colocated.moe_ep = 2;
  d.colocated.moe_tp = 2;
  EXPECT_EQ(deployment_error(d, "mixtral-8x7b"), "colocated pool: moe ep 2 x tp 2 = 4 does not match ranks 8");
  d.colocated.ranks = 6;
  d.colocated.attention_dp = 6;
  d.colocated.moe_ep = 2;
  d.colocated.moe_tp = 3;
  EXPECT_EQ(deployment_error(d, "tiny-moe"),
            "colocated pool: moe tp 3 does not divide the expert intermediate size 128 of tiny-moe");
  d.colocated.ranks = 16;
  d.colocated.pipeline_stages = 2;
  d.colocated.attention_dp = 16;
  d.colocated.moe_ep = 8;
  d.colocated.moe_tp = 1;
  EXPECT_EQ(deployment_error(d, "tiny-moe", 2),
            "colocated pool: attention dp 16 x tp 1 = 16 does not match ranks 8 per stage (16 / pp 2)");
  d.colocated.pipeline_stages = 3;
  EXPECT_EQ(deployment_error(d, "tiny-moe", 2), "colocated pool: 16 ranks do not split into pp 3 stages");
}

}  // namespace
}  // namespace moesim::sim
