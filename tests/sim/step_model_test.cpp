#include "sim/step_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "calibration/cost_model.h"
#include "models/layer_ops.h"
#include "models/parallel_shard.h"
#include "models/presets.h"
#include "sim/moe_comm.h"
#include "sim/rank_costs.h"
#include "sim/tp_collective.h"
#include "sim/trace.h"
#include "topology/a2a_fixed.h"
#include "topology/all_to_all.h"
#include "topology/traffic.h"

namespace moesim::sim {
namespace {

struct Fixture {
  explicit Fixture(int nodes, OverlapConfig overlap = {}, const char* algorithm = "direct", bool network_only = false,
                   bool fixed_costs = true)
      : cluster(make_cluster(nodes, fixed_costs)) {
    model = *models::find_model_preset("deepseek-v3");
    hw = *calibration::find_hardware_preset("h800");
    DeploymentConfig d;
    d.colocated.ranks = d.colocated.attention_dp = d.colocated.moe_ep = nodes * 8;
    d.colocated.comm.all_to_all = sim::find_moe_comm(algorithm);
    d.colocated.comm.ll_network_only = network_only;
    deployment = std::make_unique<Deployment>(d, model, hw, cluster);
    layout = std::make_unique<InstanceLayout>(deployment->pools()[0], 0);
    cost = calibration::make_cost_model(calibration::CostModelKind::kRoofline, hw);
    workloads::RoutingConfig rc;
    rc.model = workloads::RoutingModelKind::kUniform;
    routing = workloads::make_routing_model(rc, model.routed_experts);
    step = std::make_unique<StepModel>(model, *layout, cluster, *cost, *routing, overlap);
  }
  static topology::Cluster make_cluster(int nodes, bool fixed_costs) {
    topology::ClusterConfig c;
    c.nodes = nodes;
    if (!fixed_costs)
      c.a2a_dispatch_fixed_ns = c.a2a_combine_fixed_ns = c.a2a_dispatch_peer_ns = c.a2a_combine_peer_ns = 0;
    return topology::Cluster(c);
  }
  std::vector<RankBatch> decode_batches(int per_rank, std::int64_t kv) const {
    std::vector<RankBatch> b(static_cast<std::size_t>(layout->ranks()));
    for (auto& r : b) {
      r.decode_kv_lengths.assign(static_cast<std::size_t>(per_rank), kv);
      r.sampled_tokens = per_rank;
    }
    return b;
  }
  Duration run(const std::vector<RankBatch>& b, LayerBreakdown& lb) {
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

TEST(StepModel, BiggerDecodeBatchTakesLonger) {
  Fixture f(4);
  LayerBreakdown a, b;
  EXPECT_LT(f.run(f.decode_batches(8, 2000), a), f.run(f.decode_batches(128, 2000), b));
}

TEST(StepModel, LongerKvMakesDecodeAttentionSlower) {
  Fixture f(4);
  LayerBreakdown a, b;
  f.run(f.decode_batches(64, 1000), a);
  f.run(f.decode_batches(64, 16000), b);
  EXPECT_LT(a.layer_ns[5][static_cast<int>(Phase::kAttention)], b.layer_ns[5][static_cast<int>(Phase::kAttention)]);
}

TEST(StepModel, DenseLayersHaveNoCommunication) {
  Fixture f(2);
  LayerBreakdown lb;
  f.run(f.decode_batches(32, 1000), lb);
  for (int l = 0; l < f.model.first_k_dense; ++l) {
    EXPECT_EQ(lb.layer_ns[static_cast<std::size_t>(l)][static_cast<int>(Phase::kDispatch)], 0);
    EXPECT_GT(lb.layer_ns[static_cast<std::size_t>(l)][static_cast<int>(Phase::kDenseMlp)], 0);
  }
  EXPECT_GT(lb.layer_ns[3][static_cast<int>(Phase::kDispatch)], 0);
  EXPECT_GT(lb.layer_ns[3][static_cast<int>(Phase::kExpertGemm)], 0);
  EXPECT_EQ(lb.layer_ns[3][static_cast<int>(Phase::kDenseMlp)], 0);
}

TEST(StepModel, RoutesEveryTokenToTopKExpertsInEveryMoeLayer) {
  OverlapConfig none;
  Fixture ll(2, none, "low-latency"), direct(2, none, "direct");
  LayerBreakdown a, b;
  ll.run(ll.decode_batches(16, 500), a);
  direct.run(direct.decode_batches(16, 500), b);
  const int ranks = ll.layout->ranks();
  const std::int64_t tokens = 16 * ranks;
  EXPECT_EQ(a.tokens_routed, tokens * ll.model.top_k * ll.model.num_moe_layers());
  EXPECT_EQ(a.tokens_combined, a.tokens_routed);
  // Low-latency kernels send every token-expert pair that leaves its rank: about
  // (ranks-1)/ranks of the pairs under uniform routing.
  const double per_token = models::dispatch_bytes_per_token(ll.model);
  const double pairs_out = static_cast<double>(a.tokens_routed) * (ranks - 1) / ranks;
  EXPECT_NEAR(a.dispatch_bytes, pairs_out * per_token, 0.02 * pairs_out * per_token);
  // A direct all-to-all sends a token once per destination rank: with k = 8 of 256 experts on
  // 16 ranks, a token reaches a given rank with probability 1 - (15/16)^8 while sending 8/16
  // pairs there on average.
  const double q = 1.0 / ranks;
  const double distinct = (1 - std::pow(1 - q, 8)) / (8 * q);
  EXPECT_NEAR(b.dispatch_bytes, pairs_out * per_token * distinct, 0.04 * pairs_out * per_token * distinct);
  EXPECT_LT(b.dispatch_bytes, a.dispatch_bytes);
}

TEST(StepModel, CrossingNodesMakesDispatchSlowerThanNvlinkOnly) {
  // Same tokens per rank on 2 vs 4 nodes (EP8 inside one node does not fit DeepSeek-V3's
  // weights): the inter-node share of the pairs grows from 1/2 to 3/4, all over one NIC each.
  Fixture two(2), four(4);
  LayerBreakdown a, b;
  two.run(two.decode_batches(64, 1000), a);
  four.run(four.decode_batches(64, 1000), b);
  EXPECT_LT(a.layer_ns[10][static_cast<int>(Phase::kDispatch)], b.layer_ns[10][static_cast<int>(Phase::kDispatch)]);
}

TEST(StepModel, LowLatencyPairsInsideANodeOverTheNetworkLoadTheNics) {
  // DeepEP low-latency kernels without NVLink traffic: on 4 nodes a rank's NIC carries its 31
  // peers' pairs instead of the 24 on other nodes; the bytes moved stay the same.
  Fixture nvlink(4, {}, "low-latency"), rdma(4, {}, "low-latency", true);
  LayerBreakdown a, b;
  nvlink.run(nvlink.decode_batches(64, 1000), a);
  rdma.run(rdma.decode_batches(64, 1000), b);
  const double ratio =
      b.layer_ns[10][static_cast<int>(Phase::kDispatch)] / a.layer_ns[10][static_cast<int>(Phase::kDispatch)];
  EXPECT_GT(ratio, 1.15);
  EXPECT_LT(ratio, 31.0 / 24.0 + 0.05);
  EXPECT_DOUBLE_EQ(a.dispatch_bytes, b.dispatch_bytes);
  // A property of the low-latency kernels (DeepEP's allow_nvlink_for_low_latency_mode): normal
  // kernels always forward over NVLink, whatever it says.
  Fixture normal(4, {}, "hierarchical"), normal_rdma(4, {}, "hierarchical", true);
  LayerBreakdown c, d;
  normal.run(normal.decode_batches(64, 1000), c);
  normal_rdma.run(normal_rdma.decode_batches(64, 1000), d);
  EXPECT_DOUBLE_EQ(c.layer_ns[10][static_cast<int>(Phase::kDispatch)],
                   d.layer_ns[10][static_cast<int>(Phase::kDispatch)]);
}

TEST(StepModel, IdleRanksStillWaitForTheSlowestRank) {
  Fixture f(2);
  auto batches = f.decode_batches(0, 0);
  batches[3].decode_kv_lengths.assign(64, 4000);
  batches[3].sampled_tokens = 64;
  LayerBreakdown lb;
  const Duration d = f.run(batches, lb);
  EXPECT_GT(d, Duration::ms(1));
}

double sum(const std::vector<double>& v) {
  double t = 0;
  for (double x : v) t += x;
  return t;
}

TEST(TwoBatchOverlap, HidesCommunicationWhenBatchesAreLarge) {
  Fixture none(4, {}, "direct", false, false), tbo(4, {OverlapScheme::kTwoBatch, 0.0}, "direct", false, false);
  LayerBreakdown a, b;
  // The transfers are what overlap hides; the kernels' fixed costs, which two micro-batches pay
  // twice, are left out here (Fixture's `fixed_costs`).
  const Duration t_none = none.run(none.decode_batches(256, 2000), a);
  const Duration t_tbo = tbo.run(tbo.decode_batches(256, 2000), b);
  EXPECT_LT(t_tbo, t_none);
  EXPECT_LT(sum(b.exposed_comm_ns), 0.5 * sum(a.exposed_comm_ns));
  // Without overlap every all-to-all is exposed: exposed >= dispatch + combine of MoE layers.
  double comm = 0;
  for (const auto& l : a.layer_ns) comm += l[static_cast<int>(Phase::kDispatch)] + l[static_cast<int>(Phase::kCombine)];
  EXPECT_GE(sum(a.exposed_comm_ns), 0.99 * comm);
}

TEST(StepModel, PreparedBoundIsTheSlowestRanksAttentionAndNoStepIsShorter) {
  // prepare() bounds the step from below by the attention each rank's compute stream runs (what
  // parallel steps read ahead to); prepare() then execute() is run().
  for (const OverlapConfig overlap : {OverlapConfig{}, OverlapConfig{OverlapScheme::kTwoBatch, 0.0}}) {
    Fixture f(2, overlap), g(2, overlap);
    auto batches = f.decode_batches(64, 3000);
    batches[5].decode_kv_lengths.assign(64, 9000);  // one rank's attention is the slowest
    LayerBreakdown a, b;
    workloads::Rng rng_a(5), rng_b(5);
    const Duration bound = f.step->prepare(batches, Time::zero(), a);
    const Duration d = f.step->execute(0, rng_a, a);
    EXPECT_EQ(d, g.step->run(batches, 0, rng_b, b));
    EXPECT_LE(bound, d);
    // The bound is rank 5's attention over all 61 layers, rounded down: all of it in one batch,
    // at least that in two micro-batches (each pays its kernels' fixed costs).
    const double attention = 61 * rank_costs(f.model, *f.cost, batches[5]).attention;
    if (overlap.scheme == OverlapScheme::kNone) {
      EXPECT_NEAR(static_cast<double>(bound.count_ns()), attention, 2.0 + 1e-8 * attention);
    }
    EXPECT_GE(static_cast<double>(bound.count_ns()), attention * (1 - 1e-8) - 2.0);
    EXPECT_GT(static_cast<double>(bound.count_ns()), 0.2 * static_cast<double>(d.count_ns()));
  }
}

TEST(TwoBatchOverlap, DoesNotHelpATinyBatch) {
  Fixture none(4), tbo(4, {OverlapScheme::kTwoBatch, 0.0});
  LayerBreakdown a, b;
  // One token per rank: the micro-batches cannot be split (the second is empty); all two-batch
  // overlap gains is the shared expert run while the dispatch is in flight, a few per cent.
  const Duration t_none = none.run(none.decode_batches(1, 2000), a);
  const Duration t_tbo = tbo.run(tbo.decode_batches(1, 2000), b);
  EXPECT_GE(t_tbo.count_ns(), t_none.count_ns() * 90 / 100);
}

TEST(TwoBatchOverlap, CommunicationSmsSlowConcurrentCompute) {
  Fixture free(4, {OverlapScheme::kTwoBatch, 0.0}), held(4, {OverlapScheme::kTwoBatch, 24.0 / 132.0});
  LayerBreakdown a, b;
  EXPECT_LT(free.run(free.decode_batches(128, 2000), a), held.run(held.decode_batches(128, 2000), b));
}

// DeepSeek-V3 moves 7,168 BF16 values per token in, 7,168 FP8 values + 56 scales + 8 (index,
// weight) pairs per dispatched message, and 7,168 BF16 values per combined result.
TEST(LowLatencyPhases, CostTheBytesEachKernelMoves) {
  const auto model = *models::find_model_preset("deepseek-v3");
  const auto cost =
      calibration::make_cost_model(calibration::CostModelKind::kRoofline, *calibration::find_hardware_preset("h800"));
  const double act = 7168 * 2.0, msg = 7168 + 56 * 4.0 + 8 * 8.0, out = 7168 * 2.0;
  const auto p = low_latency_phases(model, *cost, 128, 1024, models::dispatch_bytes_per_token(model),
                                    models::combine_bytes_per_token(model));
  EXPECT_DOUBLE_EQ(p.dispatch_send, cost->memory_op(128 * (act + msg)).time_ns);
  EXPECT_DOUBLE_EQ(p.dispatch_recv, cost->memory_op(2 * 1024 * msg).time_ns);
  EXPECT_DOUBLE_EQ(p.combine_send, cost->memory_op(2 * 1024 * out).time_ns);
  EXPECT_DOUBLE_EQ(p.combine_recv, cost->memory_op(128 * 8 * out + 128 * act).time_ns);
  // A rank with nothing to send or receive launches nothing.
  const auto idle = low_latency_phases(model, *cost, 0, 0, msg, out);
  EXPECT_EQ(idle.dispatch_send + idle.dispatch_recv + idle.combine_send + idle.combine_recv, 0.0);
}

// Rank 0's events of one step, looked up by name, layer and micro-batch.
struct StepEvents {
  std::vector<TraceEvent> events;
  const TraceEvent* find(const char* name, int layer, int mb) const {
    for (const auto& e : events)
      if (e.rank == 0 && std::string(e.name) == name && e.layer == layer && e.micro_batch == mb) return &e;
    return nullptr;
  }
  static std::int64_t end(const TraceEvent* e) { return e->start_ns + e->duration_ns; }
};

StepEvents low_latency_step(std::vector<RankBatch> (*batches)(const Fixture&)) {
  Fixture f(2, {OverlapScheme::kTwoBatch, 0.0}, "low-latency");
  TraceOptions o;
  o.max_ranks = 1;
  TraceRecorder rec(o);
  f.step->set_trace(&rec, 0, 0);
  LayerBreakdown lb;
  f.run(batches(f), lb);
  return {rec.events()};
}

std::vector<RankBatch> decode_128(const Fixture& f) { return f.decode_batches(128, 2000); }
std::vector<RankBatch> mixed_128(const Fixture& f) {
  auto b = f.decode_batches(128, 2000);
  b[1].prefill_chunks.push_back({0, 512});  // one prompt chunk: an extend (mixed) step
  return b;
}

// The SM phases sit on the compute stream around the transfer: send before it, receive after it.
TEST(TwoBatchOverlap, LowLatencyKernelsHoldTheSmsOnlyToPackAndUnpack) {
  for (auto* batches : {decode_128, mixed_128}) {
    const StepEvents s = low_latency_step(batches);
    const int layer = 10;  // an MoE layer
    for (int mb = 0; mb < 2; ++mb) {
      const auto *send = s.find("dispatch_send", layer, mb), *dispatch = s.find("dispatch", layer, mb);
      const auto *recv = s.find("dispatch_recv", layer, mb), *gemm = s.find("expert_gemm", layer, mb);
      const auto *csend = s.find("combine_send", layer, mb), *combine = s.find("combine", layer, mb);
      ASSERT_TRUE(send && dispatch && recv && gemm && csend && combine) << "micro-batch " << mb;
      EXPECT_FALSE(send->comm);
      EXPECT_TRUE(dispatch->comm);
      EXPECT_FALSE(recv->comm);
      EXPECT_LE(StepEvents::end(send), dispatch->start_ns);
      EXPECT_LE(StepEvents::end(dispatch), recv->start_ns);
      EXPECT_LE(StepEvents::end(recv), gemm->start_ns);
      EXPECT_LE(StepEvents::end(csend), combine->start_ns);
    }
  }
}

// A decode step runs the five-stage schedule (sim/overlap.h): the compute stream takes A's
// dispatch send, B's attention before its core, A's receive, B's attention core, A's combine
// receive, B's send, A's next attention prep, B's receive... so each dispatch is in flight over
// the other micro-batch's first attention stage and each combine over its second, and no
// all-to-all is in flight while either micro-batch's experts compute.
TEST(TwoBatchOverlap, DecodeStepsRunTheFiveStagePipeline) {
  const StepEvents s = low_latency_step(decode_128);
  const int L = 10;
  const TraceEvent* order[] = {
      s.find("attention_prep", L, 0),   s.find("attention", L, 0),     s.find("router", L, 0),
      s.find("dispatch_send", L, 0),    s.find("shared_expert", L, 0), s.find("attention_prep", L, 1),
      s.find("dispatch_recv", L, 0),    s.find("expert_gemm", L, 0),   s.find("combine_send", L, 0),
      s.find("attention", L, 1),        s.find("router", L, 1),        s.find("combine_recv", L, 0),
      s.find("dispatch_send", L, 1),    s.find("shared_expert", L, 1), s.find("attention_prep", L + 1, 0),
      s.find("dispatch_recv", L, 1),    s.find("expert_gemm", L, 1),   s.find("combine_send", L, 1),
      s.find("attention", L + 1, 0),    s.find("router", L + 1, 0),    s.find("combine_recv", L, 1),
      s.find("dispatch_send", L + 1, 0)};
  for (std::size_t i = 0; i < std::size(order); ++i) ASSERT_NE(order[i], nullptr) << "op " << i;
  for (std::size_t i = 1; i < std::size(order); ++i)
    EXPECT_LE(StepEvents::end(order[i - 1]), order[i]->start_ns) << "op " << i;
  for (int mb = 0; mb < 2; ++mb) {
    const auto* gemm = s.find("expert_gemm", L, mb);
    for (const auto& e : s.events) {
      if (e.rank != 0 || !e.comm || e.duration_ns == 0) continue;
      EXPECT_TRUE(StepEvents::end(&e) <= gemm->start_ns || e.start_ns >= StepEvents::end(gemm))
          << e.name << " of layer " << e.layer << " overlaps micro-batch " << mb << "'s GEMM";
    }
  }
}

// A step with prefill work keeps the extend order: both attention halves, then both expert
// halves; a combine's receive waits until its micro-batch next computes, so micro-batch 1's
// expert GEMM is not queued behind micro-batch 0's combine.
TEST(TwoBatchOverlap, MixedStepsDeferTheCombineReceive) {
  const StepEvents s = low_latency_step(mixed_128);
  const int L = 10;
  EXPECT_EQ(s.find("attention_prep", L, 0), nullptr);
  const TraceEvent* crecv0 = nullptr;
  for (const auto& e : s.events)
    if (e.rank == 0 && std::string(e.name) == "combine_recv" && e.micro_batch == 0 &&
        e.start_ns >= s.find("combine", L, 0)->start_ns) {
      crecv0 = &e;
      break;
    }
  ASSERT_NE(crecv0, nullptr);
  EXPECT_GE(crecv0->start_ns, StepEvents::end(s.find("combine", L, 0)));
  EXPECT_GE(crecv0->start_ns, StepEvents::end(s.find("expert_gemm", L, 1)));
}

// While communication kernels hold a share s of the SMs, the computation beside them runs at
// 1 - s of its speed: every compute op of an overlapped step takes 1 / (1 - s) of its time
// (DeepEP normal mode: 24 of 132 SMs, x 1.222; half the SMs: x 2).
// The SMs the communication kernels hold (comm_sm_share) slow a compute op only while an
// all-to-all is in flight beside it (sim/stream_timeline.h). In the decode pipeline the grouped
// GEMMs overlap nothing, so they are never slowed; the second micro-batch's attention runs beside
// the first's all-to-alls and is slowed by at most 1 / (1 - share).
TEST(TwoBatchOverlap, ComputeSlowsOnlyWhileCommunicationIsInFlight) {
  const auto traced = [](double share, const char* op, int micro_batch) {
    Fixture f(2, {OverlapScheme::kTwoBatch, share});
    TraceOptions o;
    o.max_ranks = 1;
    TraceRecorder rec(o);
    f.step->set_trace(&rec, 0, 0);
    LayerBreakdown lb;
    f.run(f.decode_batches(128, 2000), lb);
    for (const auto& e : rec.events())
      if (e.rank == 0 && std::string(e.name) == op && e.layer == 10 && e.micro_batch == micro_batch)
        return static_cast<double>(e.duration_ns);
    return -1.0;
  };
  const double gemm = traced(0.0, "expert_gemm", 0);
  ASSERT_GT(gemm, 1000.0);
  EXPECT_NEAR(traced(0.5, "expert_gemm", 0), gemm, 1.0);
  const double attention = traced(0.0, "attention_prep", 1);
  ASSERT_GT(attention, 1000.0);
  for (const double share : {24.0 / 132.0, 0.5}) {
    const double slowed = traced(share, "attention_prep", 1);
    EXPECT_GT(slowed, attention * 1.01) << share;
    EXPECT_LE(slowed, attention / (1.0 - share) + 2.0) << share;
  }
}

// While an all-to-all holds a share s of the SMs, a compute op progresses at 1 - s: an op that
// overlaps in-flight communication for w ns of its wall time ends w * s later than alone.
TEST(TwoBatchOverlap, ComputeBesideCommunicationRunsOnTheSmsLeft) {
  const auto events = [](double share) {
    Fixture f(2, {OverlapScheme::kTwoBatch, share});
    TraceOptions o;
    o.max_ranks = 1;
    TraceRecorder rec(o);
    f.step->set_trace(&rec, 0, 0);
    LayerBreakdown lb;
    f.run(f.decode_batches(128, 2000), lb);
    return rec.events();
  };
  const auto find = [](const std::vector<TraceEvent>& ev) {
    for (const auto& e : ev)
      if (e.rank == 0 && !e.comm && std::string(e.name) == "attention_prep" && e.layer == 10 && e.micro_batch == 1)
        return e;
    return TraceEvent{};
  };
  const double alone = static_cast<double>(find(events(0.0)).duration_ns);
  ASSERT_GT(alone, 1000.0);
  for (const double share : {24.0 / 132.0, 0.5}) {
    const auto ev = events(share);
    const TraceEvent op = find(ev);
    double overlap = 0;  // wall time the op spends beside in-flight communication on its rank
    for (const auto& e : ev)
      if (e.rank == 0 && e.comm)
        overlap +=
            std::max<double>(0, static_cast<double>(std::min(e.start_ns + e.duration_ns, op.start_ns + op.duration_ns) -
                                                    std::max(e.start_ns, op.start_ns)));
    ASSERT_GT(overlap, 1000.0) << share;
    EXPECT_NEAR(static_cast<double>(op.duration_ns), alone + overlap * share, 3.0) << share;
  }
}

// With the analytic fidelity the combine is costed as the dispatch reversed with the combine's
// bytes per token: DeepSeek-V3 dispatches 7,168 FP8 values + 56 FP32 scales + 8 (index, weight)
// pairs (7,456 bytes) and combines 7,168 BF16 values (14,336 bytes), x 1.923. On two nodes at 128
// tokens per rank the transfer dwarfs the few microseconds of latency, so each layer's combine
// phase is close to 1.923 times its dispatch phase (and never more).
TEST(StepModel, CombineMovesTheCombinesBytesPerToken) {
  Fixture f(2, {}, "direct", false, /*fixed_costs=*/false);  // the transfers alone
  LayerBreakdown lb;
  f.run(f.decode_batches(128, 2000), lb);
  const double ratio = models::combine_bytes_per_token(f.model) / models::dispatch_bytes_per_token(f.model);
  EXPECT_NEAR(ratio, 14336.0 / 7456.0, 1e-12);
  double dispatch = 0, combine = 0;
  for (const auto& layer : lb.layer_ns) {
    dispatch += layer[static_cast<int>(Phase::kDispatch)];
    combine += layer[static_cast<int>(Phase::kCombine)];
  }
  ASSERT_GT(dispatch, 0.0);
  EXPECT_GT(combine / dispatch, 0.95 * ratio);
  EXPECT_LE(combine / dispatch, ratio);
}

TEST(SharedExpertOverlap, RunsTheSharedExpertDuringDispatch) {
  Fixture none(4), shared(4, {OverlapScheme::kSharedExpert, 0.0});
  LayerBreakdown a, b;
  const Duration t_none = none.run(none.decode_batches(128, 2000), a);
  const Duration t_shared = shared.run(shared.decode_batches(128, 2000), b);
  EXPECT_LT(t_shared, t_none);
  EXPECT_LT(sum(b.exposed_comm_ns), sum(a.exposed_comm_ns));
}

// The first attention stage of the decode schedule is the KV-independent part before the core.
TEST(RankCosts, AttentionBeforeItsCoreDoesNotDependOnTheCache) {
  Fixture f(2);
  RankBatch shortkv, longkv;
  shortkv.decode_kv_lengths.assign(64, 1000);
  longkv.decode_kv_lengths.assign(64, 16000);
  const RankCosts a = rank_costs(f.model, *f.cost, shortkv), b = rank_costs(f.model, *f.cost, longkv);
  EXPECT_GT(a.attention_prep, 0.0);
  EXPECT_LT(a.attention_prep, a.attention);
  EXPECT_DOUBLE_EQ(a.attention_prep, b.attention_prep);
  EXPECT_GT(b.attention - b.attention_prep, a.attention - a.attention_prep);
}

// A Gated DeltaNet layer (Qwen3-Next's `attention_local` slot) costs the same at any context: its
// recurrence reads each sequence's fixed state; the full-attention layers grow with the cache.
TEST(RankCosts, LinearAttentionLayersCostTheSameAtAnyContext) {
  const auto hw = *calibration::find_hardware_preset("h200");
  const auto cost = calibration::make_cost_model(calibration::CostModelKind::kFitted, hw);
  const models::ModelSpec model = *models::find_model_preset("qwen3-next-80b-a3b");
  EXPECT_EQ(first_local_layer(model), 0);
  RankBatch shortkv, longkv;
  shortkv.decode_kv_lengths.assign(64, 2000);
  longkv.decode_kv_lengths.assign(64, 128000);
  shortkv.sampled_tokens = longkv.sampled_tokens = 64;
  const RankCosts a = rank_costs(model, *cost, shortkv), b = rank_costs(model, *cost, longkv);
  EXPECT_DOUBLE_EQ(a.attention_local, b.attention_local);
  EXPECT_GT(b.attention, 3 * a.attention);
  // Its core streams 64 states of 2 MiB in and out: at least 256 MiB at the H200's bandwidth.
  EXPECT_GT(a.attention_local, 64 * 2 * 2.0 * 1024 * 1024 / hw.hbm_bytes_per_s * 1e9);
  EXPECT_GT(a.attention_local_prep, 0.0);
  EXPECT_LT(a.attention_local_prep, a.attention_local);
  EXPECT_NE(a.attention_local_prep, a.attention_prep);  // its own projections
  // A prefill chunk of 8K tokens costs the linear layer twice what 4K does, give or take launches.
  RankBatch p4, p8;
  p4.prefill_chunks.push_back({0, 4096});
  p8.prefill_chunks.push_back({0, 8192});
  const RankCosts c4 = rank_costs(model, *cost, p4), c8 = rank_costs(model, *cost, p8);
  EXPECT_NEAR(c8.attention_local / c4.attention_local, 2.0, 0.1);
  EXPECT_GT(c8.attention / c4.attention, c8.attention_local / c4.attention_local);
}

// The memo keeps the token-count part of the costs: every batch gets exactly rank_costs', for a
// model with local (windowed) attention too, with prefill chunks, and for an attention shard.
TEST(RankCosts, MemoGivesRankCostsBitForBit) {
  const auto hw = *calibration::find_hardware_preset("h800");
  const auto cost = calibration::make_cost_model(calibration::CostModelKind::kFitted, hw);
  for (const char* name : {"deepseek-v3", "gpt-oss-120b", "qwen3-next-80b-a3b"}) {
    const models::ModelSpec model = *models::find_model_preset(name);
    const models::ModelSpec shard = models::attention_shard(model, 2);
    RankCostMemo memo;
    for (int i = 0; i < 60; ++i) {
      RankBatch b;
      b.decode_kv_lengths.assign(static_cast<std::size_t>(i % 7 == 0 ? 0 : 20 + i % 3), 1000 + 97 * i);
      if (i % 5 == 1) b.prefill_chunks.push_back({static_cast<std::int64_t>(100 * i), 512});
      b.sampled_tokens = b.decode_tokens();
      RankCostShape shape;
      if (i % 4 == 3) {
        shape.attention = &shard;
        shape.moe_tokens = b.tokens() / 2;
        shape.shared_split = 2;
      }
      const RankCosts a = memo(model, *cost, b, shape), r = rank_costs(model, *cost, b, shape);
      EXPECT_EQ(a.attention, r.attention) << name << " " << i;
      EXPECT_EQ(a.attention_local, r.attention_local) << name << " " << i;
      EXPECT_EQ(a.attention_prep, r.attention_prep) << name << " " << i;
      EXPECT_EQ(a.attention_local_prep, r.attention_local_prep) << name << " " << i;
      EXPECT_EQ(a.dense_mlp, r.dense_mlp) << name << " " << i;
      EXPECT_EQ(a.shared, r.shared) << name << " " << i;
      EXPECT_EQ(a.router, r.router) << name << " " << i;
      EXPECT_EQ(a.lm_head, r.lm_head) << name << " " << i;
    }
  }
}

TEST(LowLatencyPhases, ALayersRanksAtOnceAsOneByOne) {
  Fixture f(2);
  std::vector<std::int64_t> received;
  for (int r = 0; r < 40; ++r) received.push_back(r % 9 == 0 ? 0 : 37 * r);
  std::vector<double> recv(received.size()), send(received.size()), scratch;
  low_latency_pair_phase_times(*f.cost, received, 7456, 14336, recv, send, scratch);
  for (std::size_t r = 0; r < received.size(); ++r) {
    LowLatencyPhases p;
    low_latency_pair_phases(*f.cost, received[r], 7456, 14336, p);
    EXPECT_EQ(recv[r], p.dispatch_recv) << r;
    EXPECT_EQ(send[r], p.combine_send) << r;
  }
}

TEST(StepModel, DecodeCostGrowsWithKvOnlyThroughAttention) {
  Fixture f(4);
  LayerBreakdown a, b;
  f.run(f.decode_batches(64, 1000), a);
  f.run(f.decode_batches(64, 8000), b);
  for (std::size_t l = 0; l < a.layer_ns.size(); ++l) {
    EXPECT_LT(a.layer_ns[l][static_cast<int>(Phase::kAttention)], b.layer_ns[l][static_cast<int>(Phase::kAttention)]);
    EXPECT_EQ(a.layer_ns[l][static_cast<int>(Phase::kDenseMlp)], b.layer_ns[l][static_cast<int>(Phase::kDenseMlp)]);
    EXPECT_EQ(a.layer_ns[l][static_cast<int>(Phase::kSharedExpert)],
              b.layer_ns[l][static_cast<int>(Phase::kSharedExpert)]);
  }
  // The MoE side sees the same tokens, so routed traffic is identical.
  EXPECT_EQ(a.tokens_routed, b.tokens_routed);
}

}  // namespace
}  // namespace moesim::sim

namespace moesim::sim {
namespace {

// The step model costs an analytic combine as the dispatch reversed with the combine's bytes per
// token; check that against costing the reversed traffic directly, for every algorithm.
TEST(StepModel, AnalyticCombineIsTheDispatchReversed) {
  topology::ClusterConfig cc;
  cc.nodes = 4;
  const topology::Cluster cluster(cc);
  const auto model = *models::find_model_preset("deepseek-v3");
  std::vector<int> devices(32);
  for (int i = 0; i < 32; ++i) devices[static_cast<std::size_t>(i)] = i;
  topology::AllToAllTraffic t;
  t.pair_bytes = topology::TrafficMatrix(32);
  t.expert_bytes = topology::TrafficMatrix(32);
  workloads::Rng rng(3);
  for (int s = 0; s < 32; ++s)
    for (int d = 0; d < 32; ++d) {
      if (s == d) continue;
      const double v = static_cast<double>(rng() % 200);
      t.pair_bytes.at(s, d) = v;
      t.expert_bytes.at(s, d) = v * 1.3;
    }
  for (const char* algorithm : {"direct", "hierarchical", "low-latency"}) {
    topology::AllToAllOptions dispatch, combine;
    dispatch.algorithm = combine.algorithm = &topology::find_all_to_all(algorithm);
    dispatch.scale = models::dispatch_bytes_per_token(model);
    combine.scale = models::combine_bytes_per_token(model);
    combine.direction = topology::Direction::kCombine;
    const auto d = topology::all_to_all(cluster, devices, t, dispatch);
    const auto c = topology::all_to_all(cluster, devices, t, combine);
    // StepModel's mirrored combine: the dispatch's transfer rescaled, its latency and messages, and
    // the combine kernel's own fixed cost.
    const double mirrored = d.transfer_ns * (combine.scale / dispatch.scale) + d.latency_ns + d.message_ns +
                            topology::a2a_fixed_ns(cluster.config(), combine, 32);
    EXPECT_NEAR(mirrored, c.duration_ns, 1e-6 * c.duration_ns) << algorithm;
  }
}

}  // namespace
}  // namespace moesim::sim

namespace moesim::sim {
namespace {

// AllGather + ReduceScatter (sim/moe_comm.h): every rank gathers every rank's tokens, so a
// layer's dispatch is the all-gather of ranks x tokens x the dispatch bytes per token over the
// EP group, and its combine the reduce-scatter of the combine bytes; no all-to-all.
TEST(GatherScatterMoe, DispatchIsTheAllGatherOfEveryRanksTokens) {
  Fixture f(2, {}, "allgather-reducescatter");  // EP16: DeepSeek-V3 does not fit on 8 H800
  LayerBreakdown lb;
  f.run(f.decode_batches(64, 1000), lb);
  const auto& devices = f.layout->rank_devices();
  const double tokens = 64.0 * static_cast<double>(devices.size());
  const double gather =
      tp_collective_ns(f.cluster, devices, topology::CollectiveKind::kAllGather,
                       tokens * models::dispatch_bytes_per_token(f.model), topology::analytic_fidelity());
  const double scatter =
      tp_collective_ns(f.cluster, devices, topology::CollectiveKind::kReduceScatter,
                       tokens * models::combine_bytes_per_token(f.model), topology::analytic_fidelity());
  const int layer = f.model.first_k_dense;  // the first MoE layer
  EXPECT_NEAR(lb.layer_ns[static_cast<std::size_t>(layer)][static_cast<int>(Phase::kDispatch)], gather, 1e-6 * gather);
  EXPECT_NEAR(lb.layer_ns[static_cast<std::size_t>(layer)][static_cast<int>(Phase::kCombine)], scatter, 1e-6 * scatter);
  EXPECT_EQ(lb.tokens_routed, lb.tokens_combined);
  EXPECT_GT(lb.layer_ns[static_cast<std::size_t>(layer)][static_cast<int>(Phase::kExpertGemm)], 0.0);
}

}  // namespace
}  // namespace moesim::sim
