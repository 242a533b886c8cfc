// StepModel: the duration of one forward step of an instance, layer by layer, on per-rank
// compute and communication streams (docs/design.md §1, §4).
//
// Every rank runs attention for its own batch (decode tokens and prefill chunks), then each
// layer's MLP: a dense layer runs locally; an MoE layer runs router and shared expert locally,
// then DISPATCH (an all-to-all over the EP group; traffic from the routing counts and the
// placement), the grouped GEMM of the rank's local experts, and COMBINE. The all-to-alls
// synchronise the ranks, so a rank that is slow in attention holds every rank back. The step
// ends with the LM head for the tokens that sample. How communication and computation overlap
// follows the pool's overlap scheme (sim/overlap.h); ops are placed on a StreamTimeline.
//
// Each token-expert pair is one message of the dispatch (as in DeepEP's low-latency mode).
//
// Tensor parallelism (Megatron-LM, Shoeybi et al. 2019, §3). An attention TP group of tp
// consecutive ranks serves one batch: each rank runs its attention shard (heads / tp;
// models/parallel_shard.h) over the group's whole batch. What follows depends on the MoE plan:
// - Dense layers: the attention output is all-reduced over the group, the dense MLP runs split
//   tp ways (column- then row-parallel) over the group's tokens, and is all-reduced again.
// - MoE over EP with moe tp 1 (SGLang's DP attention with attention TP inside each DP rank): the
//   attention output is reduce-scattered over the group, so each rank holds 1/tp of the group's
//   tokens, routes them and dispatches them over the whole EP group; after the combine the group
//   all-gathers its tokens again for the next attention. Reduce-scatter plus all-gather moves
//   what one all-reduce moves, and no token is dispatched twice.
// - MoE TP (moe tp > 1; ep groups of moe tp ranks, each rank a 1/moe_tp slice of every expert of
//   its group): the reduce-scatter is followed by an all-gather over every rank of the stage, so
//   each rank holds all the stage's tokens (the all-reduce of classic TP when attention dp is 1;
//   SGLang's gather around a TP MoE with DP attention); each rank runs the router on all of them,
//   the shared experts split over all ranks, and its grouped GEMM on the tokens routed to its EP
//   group's experts, with the intermediate split moe tp ways; a reduce-scatter over the stage
//   sums the partial outputs and an all-gather over the attention group restores its tokens. No
//   all-to-all.
// The TP collectives are timed on the group's devices (sim/tp_collective.h) and hold
// the members' compute and communication streams (StreamTimeline::group_collective); they show
// as the `tp_comm` phase and count as exposed communication.
//
// Pipeline stages: a StepModel runs its layout's stage, layers [first_layer, end_layer), and
// the LM head only on the last stage (sim/pipeline_step.h chains the stages).
//
// Speculative verification: a decoding request feeds decode_queries positions; GEMMs, routing and
// the all-to-all see all of them, its attention reads its cache once (sim/rank_costs.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/layer_breakdown.h"
#include "sim/layer_routing.h"
#include "sim/load_stats.h"
#include "sim/moe_exchange.h"
#include "sim/overlap.h"
#include "sim/rank_costs.h"
#include "sim/route_memo.h"
#include "sim/step_batch.h"
#include "sim/stream_timeline.h"
#include "sim/time.h"
#include "sim/trace.h"
#include "topology/cluster.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

class StepModel {
 public:
  StepModel(const models::ModelSpec& model, const InstanceLayout& deployment, const topology::Cluster& cluster,
            const calibration::CostModel& cost, const workloads::RoutingModel& routing, OverlapConfig overlap);

  // Duration of one step starting at `start`, with one batch per attention group (per rank
  // without attention TP); adds each layer's phases to `breakdown`.
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown,
               Time start = Time::zero()) {
    prepare(batches, start, breakdown);
    return execute(step, rng, breakdown);
  }
  // run() in two parts. prepare() splits the batches and costs what does not depend on the
  // routing draws, and returns a lower bound of the step's duration: every op of a rank's
  // compute stream runs one after the other, and every layer of the stage runs each micro-batch's
  // attention there, so no rank finishes before the attention of all its layers (parallel steps,
  // sim/step_workers.h, read ahead of the step up to it). execute() draws the routing and places
  // every op; it must follow the prepare() of the same batches, which it reads (they must stay
  // alive and unchanged in between).
  Duration prepare(std::span<const RankBatch> batches, Time start, LayerBreakdown& breakdown);
  Duration execute(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown);
  // Re-places the experts from the load seen since the last call (EPLB rebalancing); returns
  // how long the weight migration blocks the instance.
  Duration rebalance();
  // Reports the ops of the steps `recorder` wants (null: none).
  void set_trace(TraceRecorder* recorder, int pool, int instance);
  const InstanceLayout& layout() const { return deployment_; }
  // Adds this instance's routing and link loads to `stats` (null: none).
  void set_load_stats(LoadStats* stats, int instance);
  // Books what replayed draws left to book in the load statistics (their link loads,
  // MoeExchange::settle; shared draws' expert counts, LayerRouting::take_replayed); call once the
  // run ends, before they are read.
  void settle_load_stats();
  // Keeps up to `draws` routing draws per MoE layer and tokens per rank and replays them
  // (sim/route_memo.h; RoutingConfig::reuse_draws); 0, the default: every draw is fresh.
  // `share`: layers whose draws have one law keep one pool (RoutingConfig::share_draws).
  void set_reuse_draws(int draws, bool share = false);

 private:
  struct MicroBatch {
    std::vector<RankCosts> costs;            // per rank
    std::vector<std::int64_t> tokens;        // per rank: tokens it routes (its slice of its group's)
    std::uint64_t tokens_fingerprint = 0;    // RouteMemo::fingerprint(tokens), this step's
    std::vector<double> ready;               // per rank: end of this micro-batch's last op
    std::vector<double> scratch;             // per rank
    std::vector<double> gemm_ns;             // per rank: expert GEMM (MoE TP's gathered layers)
    double dispatch_ns = 0, combine_ns = 0;  // this layer's all-to-alls (drawn in front)
    double dispatch_end = 0;                 // when this layer's dispatch lands (decode schedule)
    double comm_rate = 1.0;                  // its all-to-alls' rate beside busy compute (HBM shared)
    // Low-latency kernels only, per rank: their SM phases (sim/rank_costs.h), this layer's.
    std::vector<double> dispatch_send, combine_recv;
    // This layer's draw (drawn in front), per rank: expert GEMM and the low-latency receive and
    // send phases (zeros without them), read in place from the RouteOutcome that holds them
    // (apply_route; copied into `own` before route() writes over it: keep_views_off), and each
    // one's slowest rank.
    std::span<const double> gemm, dispatch_recv, combine_send;
    double gemm_max = 0, dispatch_recv_max = 0, combine_send_max = 0;
    RouteOutcome own;                   // this micro-batch's draws the memo does not keep, and copied views
    bool combine_recv_pending = false;  // the last combine's receive is not issued yet
    // Tensor parallelism, per attention group: all-reduce, reduce-scatter and all-gather of the
    // group's hidden states; over the whole stage (MoE TP): all-gather and reduce-scatter.
    std::vector<double> group_all_reduce, group_reduce_scatter, group_all_gather;
    std::vector<double> stage_all_gather, stage_reduce_scatter;  // one entry
    // Per rank, what every layer of one attention kind repeats within the step (step_vectors):
    // [0] full attention, [1] the model's local or linear attention layers.
    struct AttentionKind {
      std::vector<double> prep, core;  // before the core; the core and o-projection (decode schedule)
      std::vector<double> whole;       // all of it in one op (every other schedule)
      double slowest = 0;              // the slowest rank's whole attention
    };
    AttentionKind kinds[2];
    std::vector<double> router, shared_on_gemm_sms;  // the shared expert at the GEMMs' SM share
    std::vector<double> router_shared;               // router then shared expert in one op (when nothing overlaps it)
    std::vector<double> dense_mlp;
    double router_slowest = 0, shared_slowest = 0, dispatch_send_slowest = 0, combine_recv_slowest = 0;
    double dense_mlp_slowest = 0;
  };
  void split(std::span<const RankBatch> batches);
  // Low-latency kernels: the SM phases over each rank's own tokens, once per step.
  void token_phases(MicroBatch& mb);
  // The per-rank durations and slowest ranks every layer of the step repeats (MicroBatch::kinds...).
  void step_vectors(MicroBatch& mb) const;
  // sim/step_model_parallel.cpp: the tensor-parallel parts.
  void init_parallel();
  // Costs and routed tokens of every rank of `mb` from its attention groups' batches, and the
  // step's TP collective times.
  void cost_micro_batch(MicroBatch& mb, std::span<const RankBatch> groups);
  void tp_collective(MicroBatch& mb, const std::vector<double>& durations, int group, PhaseTimes& phases,
                     const char* name);
  void run_gathered_moe_layer(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
                              LayerBreakdown& breakdown);
  void run_dense_layer(MicroBatch& mb, PhaseTimes& phases);
  void dense_mlp_after_attention(MicroBatch& mb, PhaseTimes& phases);  // (TP all-reduces around it)
  // Issues the micro-batch's pending low-latency combine receive on its ranks' compute streams.
  void finish_combine(MicroBatch& mb);
  // The attention half of an MoE layer: attention, router, shared expert (unless overlapped),
  // then dispatch. Returns the dispatch's end.
  double moe_front(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
                   LayerBreakdown& breakdown);
  // The layer's routing draw, then its dispatch, combine and expert GEMM costs into `mb`.
  void route(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng, PhaseTimes& phases,
             LayerBreakdown& breakdown);
  // A draw's costs into `mb`, its phases and byte counts into the breakdown.
  void apply_route(MicroBatch& mb, const RouteOutcome& outcome, PhaseTimes& phases, LayerBreakdown& breakdown);
  // Before route() writes into `outcome`: every other micro-batch that reads it in place copies
  // what it reads into its own outcome first.
  void keep_views_off(const MicroBatch& writer, const RouteOutcome& outcome);
  double comm_rate_while_compute(double fabric_bytes, double duration_ns) const;
  // Low-latency send, the dispatch, and the shared expert while it is in flight if asked.
  // Returns the dispatch's end.
  double issue_dispatch(MicroBatch& mb, bool shared_during_dispatch);
  // The expert half: grouped GEMM, combine (then the TP all-gather, in moe_back).
  void moe_back(MicroBatch& mb, double dispatch_end, PhaseTimes& phases);
  void expert_half(MicroBatch& mb, double dispatch_end, PhaseTimes& phases);
  // sim/step_model_decode.cpp: the two-batch decode schedule (sim/overlap.h) over the stage's
  // layers, and one of its five stages of one micro-batch.
  bool decode_schedule(std::span<const RankBatch> batches) const;
  void run_layers(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown);  // any other step
  void run_decode_layers(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown);
  void decode_stage(MicroBatch& mb, int layer, int stage, int moe_layer, std::int64_t step, workloads::Rng& rng,
                    LayerBreakdown& breakdown);
  int moe_layers_before_stage() const;  // MoE layers before this stage's first layer
  // The layer's wall time and exposed communication (LayerClock) once its ops are issued: it
  // ends when the last op issued so far does.
  void close_layer(int layer, LayerBreakdown& breakdown);
  void set_layer(int layer) {
    layer_ = layer;
    layer_local_ = local_attention_layer(model_, layer);
  }

  const models::ModelSpec& model_;
  InstanceLayout deployment_;
  const topology::Cluster& cluster_;
  const calibration::CostModel& cost_;
  OverlapConfig overlap_;
  double compute_rate_while_comm_ = 1.0;  // a compute kernel's rate beside an in-flight all-to-all
  double hbm_bytes_per_ns_ = 0;           // the device's achievable HBM bandwidth
  double gemm_rate_ = 1.0;                // expert GEMMs' share of the SMs in every step (runtime)
  LayerRouting routing_;
  MoeExchange exchange_;                      // the layers' dispatch and combine (after routing_: it reads its path)
  RouteMemo memo_;                            // kept draws (set_reuse_draws)
  bool share_draws_ = false;                  // ... one pool per law shared by layers
  std::vector<std::int64_t> replay_experts_;  // a shared draw's expert counts in the layer replaying it
  LayerClock layer_clock_;
  StreamTimeline timeline_;
  std::vector<MicroBatch> micro_;
  RankCostMemo rank_cost_memo_;       // the token-count part of every rank's costs, kept across steps
  std::vector<double> cost_scratch_;  // working space of the per-layer cost batches
  std::vector<RankBatch> halves_;
  bool low_latency_ = false;  // DeepEP low-latency kernels: SM phases around the transfer
  std::vector<double> dispatch_end_;
  int layer_ = 0;
  bool layer_local_ = false;                 // the current layer has local (windowed) or linear attention
  int attention_kinds_ = 1;                  // 2 when the model has local or linear attention layers
  double stage_layers_of_kind_[2] = {0, 0};  // the stage's layers of each attention kind
  std::span<const RankBatch> step_batches_;  // the batches of the step prepare() began
  TraceRecorder* recorder_ = nullptr;
  int trace_pool_ = 0, trace_instance_ = 0;
  // Tensor parallelism (sim/step_model_parallel.cpp).
  int attention_tp_ = 1;
  bool gathered_moe_ = false;                             // MoE TP: every rank gathers the stage's tokens
  models::ModelSpec attention_shard_;                     // one rank's share of attention and dense MLPs
  std::vector<std::vector<int>> group_devices_;           // [attention group] -> devices
  std::vector<std::int64_t> group_tokens_, unit_tokens_;  // per attention group; per EP group (MoE TP)
  std::vector<double> unit_gemm_ns_;                      // per EP group (MoE TP)
  LoadStats* load_ = nullptr;
  int load_instance_ = 0;
  std::int64_t step_start_ns_ = 0;
};

}  // namespace moesim::sim
