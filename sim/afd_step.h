// AfdStep: one step of an attention-FFN disaggregated instance (sim/afd.h; docs/serving.md
// "Attention-FFN disaggregation").
//
// The instance's first M ranks run attention: each its own requests and KV cache (attention DP),
// the attention block of every layer, the dense layers' MLPs, the routers, and the LM head. The
// other N ranks hold every MoE layer's routed experts (EP over them, placed by the pool's placement
// policy) and a copy of the shared experts each. The step's batches are split into m micro-batches
// (decode requests round-robin, prefill chunks to the lightest), and in every MoE layer each
// micro-batch goes attention -> M2N transfer -> experts -> N2M transfer -> the next layer's
// attention, MegaScale-Infer's ping-pong pipeline (Zhu et al. 2025, "MegaScale-Infer: Serving
// Mixture-of-Experts at Scale with Disaggregated Expert Parallelism"): while the experts compute
// one micro-batch, the attention ranks compute the next.
//
// Each side is a set of compute streams, one per rank, that run their micro-batches in issue order
// (layer by layer, micro-batch by micro-batch); each direction of transfer (attention -> experts and
// back) is one stream of its own, so an M2N of one micro-batch waits for the one before it, but an
// M2N and an N2M travel at the same time on the two directions of the links. A micro-batch's
// expert half starts when its whole M2N has landed (the grouped GEMM needs every attention rank's
// rows) and its next attention when its whole N2M has.
//
// Routing: each layer's draw is the routing model's counts for the micro-batch's tokens, over the
// expert ranks' slots (sim/layer_routing.h, the micro-batch's tokens spread evenly over the expert
// ranks as sources: which attention rank sent a pair does not change where it goes). A token from
// attention rank i reaches expert rank j with its routed pairs (share q_j of the draw's pairs) or
// with its shared-expert row, sent to one expert rank in turn (share 1 / N): the M2N carries it
// once per expert rank it reaches, t_i (1 - (1 - q_j)^k (1 - 1/N)) tokens to rank j (direct), or
// once per pair, t_i (k q_j + 1/N) (low-latency), on the fabric between the two sides' devices
// (topology::all_to_all over the M + N devices); the N2M returns the same rows, reversed, at the
// combine's bytes per token. DeepEP's low-latency kernels add their send and receive kernels to
// the compute streams of both sides (sim/rank_costs.h, LowLatencyPhases).
//
// Reported per step: each layer's phases (slowest rank, summed over micro-batches), its wall time
// (from the last micro-batch leaving the layer before to the last leaving it) and its exposed
// transfer (the part of it in which neither side computes), and each side's busy rank-time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/layer_routing.h"
#include "sim/load_stats.h"
#include "sim/rank_costs.h"
#include "sim/step_batch.h"
#include "sim/step_model.h"
#include "sim/time.h"
#include "sim/trace.h"
#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/traffic.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

// The expert ranks of `pool`'s AFD instances as a pool of their own: EP over them, every instance's
// expert devices (what the routing and its placement see).
PoolLayout afd_expert_pool(const PoolLayout& pool);

class AfdStep {
 public:
  AfdStep(const models::ModelSpec& model, const PoolLayout& pool, int instance, const topology::Cluster& cluster,
          const calibration::CostModel& cost, const workloads::RoutingModel& routing);
  AfdStep(const AfdStep&) = delete;
  AfdStep& operator=(const AfdStep&) = delete;

  // Duration of one step of `batches` (one per attention rank) starting at `start`.
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown,
               Time start);
  void set_trace(TraceRecorder* recorder, int pool, int instance);
  // Adds the expert ranks' routing and the transfers' link loads to `stats` (sim/load_stats.h).
  void set_load_stats(LoadStats* stats, int instance);

 private:
  struct Span {
    double start, end;
  };
  // One MoE layer of micro-batch `b`: routing draw, expert times into expert_ns_, transfer times.
  void draw_layer(int moe_layer, std::size_t b, std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown);
  void trace(int rank, bool comm, const char* name, int layer, std::size_t b, double start, double duration);
  // The part of [from, to) that none of `busy_` (sorted, merged) covers.
  double uncovered(double from, double to, std::size_t& cursor) const;

  const models::ModelSpec& model_;
  const topology::Cluster& cluster_;
  const calibration::CostModel& cost_;
  PoolLayout experts_pool_;  // before experts_ and routing_, which point into it
  InstanceLayout experts_;
  LayerRouting routing_;
  std::vector<int> devices_;  // the attention ranks' devices, then the expert ranks'
  int attention_ranks_, expert_ranks_, micro_batches_;
  bool low_latency_;
  double dispatch_bytes_per_token_, combine_bytes_per_token_;
  topology::AllToAllOptions dispatch_options_, combine_options_;
  topology::AllToAllTraffic traffic_;
  RankCostMemo memo_;
  TraceRecorder* recorder_ = nullptr;
  int trace_pool_ = 0, trace_instance_ = 0;
  bool tracing_ = false;  // this step
  LoadStats* load_ = nullptr;
  int load_instance_ = 0;
  std::int64_t step_start_ns_ = 0;

  // Per step.
  std::vector<RankBatch> micro_;        // [micro-batch][attention rank]
  std::vector<RankCosts> costs_;        // [micro-batch][attention rank]
  std::vector<LowLatencyPhases> ll_;    // [micro-batch][attention rank]: their own tokens' kernels
  std::vector<std::int64_t> tokens_;    // [micro-batch][attention rank]: routed tokens
  std::vector<std::int64_t> total_;     // [micro-batch]
  std::vector<double> shared_ns_;       // [micro-batch][expert rank]: its shared-expert rows
  std::vector<std::int64_t> received_;  // [expert rank] the layer's pairs
  std::vector<std::int64_t> spread_;    // [expert rank] the micro-batch's tokens as its sources
  std::vector<double> expert_ns_;       // [expert rank] the layer's grouped GEMM (+ kernels)
  std::vector<double> gemm_scratch_, ll_scratch_, dispatch_recv_, combine_send_;
  double dispatch_ns_ = 0, combine_ns_ = 0;
  std::vector<Span> busy_;  // compute spans of either side, this step
};

}  // namespace moesim::sim
