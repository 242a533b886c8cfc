// SpeculativeDraft: the draft passes of a speculative-decoding step, run after verification on
// the instance's last pipeline stage (sim/speculative.h has the acceptance model).
//
// k passes propose the k draft tokens of the next step, each over one token of every drafting
// request (RankBatch::draft_kv_lengths: the decoding requests and those whose prompt completed).
// SGLang's EAGLE-style MTP runs the same: a draft extend over the verified tokens, then k - 1
// single-token draft steps; the extend is costed here as a single-token pass.
// - mtp: the model's MTP module (DeepSeek-V3 technical report §2.2): the [2h -> h] projection of
//   [embedding | hidden state], one transformer block shaped like the model's MoE layers
//   (attention over the module's own KV cache, router, dispatch, experts, combine over the EP
//   group, under the pool's overlap scheme) and the LM head shared with the model. The block is
//   costed by a StepModel over a one-layer model on the same ranks; the one module serves every
//   draft depth.
// - draft: a separate dense model on the same ranks, each attention group running it for its own
//   requests with the target's attention TP (heads and MLP split, two all-reduces per layer as
//   Megatron-LM), costed from its layers' ops (sim/rank_costs.h) and the group's all-reduce
//   (topology::collective).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/step_model.h"
#include "topology/cluster.h"
#include "workloads/routing_model.h"

namespace moesim::sim {

// The model the draft passes run: a one-layer copy of `target` for MTP, the draft model for draft.
models::ModelSpec draft_module(const models::ModelSpec& target, const SpeculativeConfig& spec);

class SpeculativeDraft {
 public:
  SpeculativeDraft(const models::ModelSpec& target, const InstanceLayout& last_stage, const topology::Cluster& cluster,
                   const calibration::CostModel& cost, const workloads::RoutingModel& routing);

  // Duration of the k draft passes for the drafting requests of `batches` (one per attention group).
  Duration run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng);

 private:
  double dense_draft_pass_ns() const;  // method draft: one pass over batches_

  models::ModelSpec module_;
  models::ModelSpec shard_;  // method draft: one rank's share of the draft model
  const topology::Cluster& cluster_;
  const calibration::CostModel& cost_;
  int passes_;
  bool mtp_;
  int attention_tp_;
  const topology::NetworkFidelity* fidelity_;
  std::vector<std::vector<int>> group_devices_;  // method draft: [attention group] -> devices
  std::unique_ptr<StepModel> step_;              // method mtp
  std::vector<RankBatch> batches_;
  LayerBreakdown breakdown_;  // the module's own phases (not reported per layer)
};

}  // namespace moesim::sim
