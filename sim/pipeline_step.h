// InstanceStep: one step of an instance: its pipeline stages' forward passes (one StepModel per
// stage) and, with speculative decoding, the draft passes on the last stage.
//
// Without pipeline parallelism this is the one stage's step plus the draft passes. With pp
// stages, the step's requests are split into pp micro-batches (decode requests round-robin,
// prefill chunks to the lightest), and the micro-batches flow through the stages, each stage
// handing its micro-batch's hidden states to the next stage point to point (every rank to the
// rank at the same position of the next stage, its share of its attention group's tokens;
// topology::point_to_point). Serving engines keep pp micro-batches in flight without flushing
// the pipeline between steps (vLLM's virtual engines, SGLang's pipeline scheduler), so what is
// modelled is the steady state: a micro-batch can take its next step once it has crossed every
// stage, and a stage serves the micro-batches in turn, so the step time (each request's
// inter-token time) is the longest cycle of that schedule, max over micro-batches of its trip
// (stage times plus sends) and over stages of its summed work (GPipe-style bubbles appear when
// micro-batches or stages are uneven: Huang et al. 2019, "GPipe"; Narayanan et al. 2021,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", §2.2).
// The per-layer breakdown adds every micro-batch's work on every stage.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/afd_step.h"
#include "sim/deployment.h"
#include "sim/runtime.h"
#include "sim/speculative_draft.h"
#include "sim/step_model.h"
#include "sim/trace.h"
#include "topology/cluster.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

class InstanceStep {
 public:
  InstanceStep(const models::ModelSpec& model, const PoolLayout& pool, int instance, const topology::Cluster& cluster,
               const calibration::CostModel& cost, const workloads::RoutingModel& routing);

  // Duration of one step of `batches` (one per attention group) starting at `start`: its kernels,
  // padded and launched as the pool's runtime runs them (sim/runtime.h), plus its host time.
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown,
               Time start) {
    prepare(batches, start, breakdown);
    return execute(step, rng, breakdown);
  }
  // run() in two parts (StepModel::prepare, execute): prepare() plans the step and returns a
  // lower bound of its duration (zero where it has none: pipelines, attention-FFN
  // disaggregation), execute() computes it. `batches` must stay alive and unchanged in between.
  Duration prepare(std::span<const RankBatch> batches, Time start, LayerBreakdown& breakdown);
  Duration execute(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown);
  // EPLB rebalancing on every stage; the slowest stage's migration blocks the instance.
  Duration rebalance();
  void set_trace(TraceRecorder* recorder, int pool, int instance);
  // Every stage adds its routing and link loads to `stats` (sim/load_stats.h).
  void set_load_stats(LoadStats* stats, int instance);
  // Books what replayed draws left to book (StepModel::settle_load_stats); once the run ends.
  void settle_load_stats();
  // Every stage keeps and replays routing draws (StepModel::set_reuse_draws).
  void set_reuse_draws(int draws, bool share = false);
  const InstanceLayout& layout() const { return layouts_.front(); }  // the first stage

  // Kernels each rank launches in one step (every layer of its stage, per micro-batch).
  double kernels_per_step() const { return kernels_; }

 private:
  Duration gpu_step(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
                    LayerBreakdown& breakdown, Time start);
  Duration send_ns(const RankBatch* groups, std::size_t count, int from_stage) const;

  const models::ModelSpec& model_;
  const topology::Cluster& cluster_;
  std::vector<InstanceLayout> layouts_;  // per stage
  std::vector<std::unique_ptr<StepModel>> stages_;
  std::unique_ptr<SpeculativeDraft> draft_;
  std::unique_ptr<AfdStep> afd_;    // attention-FFN disaggregation: runs every step instead of stages_
  std::vector<RankBatch> micro_;    // [micro-batch][group], flattened
  std::vector<Duration> stage_ns_;  // [stage][micro-batch], flattened
  std::vector<Duration> send_;      // [stage][micro-batch]: to the next stage
  RuntimeConfig runtime_;
  double kernels_ = 0;
  std::vector<RankBatch> padded_;  // the step's batches padded to a CUDA graph's size
  struct Pending {                 // what prepare() planned for execute()
    std::span<const RankBatch> batches;
    RuntimePlan plan;
    int requests = 0;
    Time start;
    bool with_runtime = true;  // the runtime's launches and host time count (not graph_everything)
    bool prepared = false;     // stages_[0] prepared (one stage, no AFD)
  };
  Pending pending_;
};

}  // namespace moesim::sim
