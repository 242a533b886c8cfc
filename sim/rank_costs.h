// The compute cost of one rank's batch for each sub-block of a layer (DESIGN.md §1).
//
// Attention (norms, projections, attention core over each request's KV) and the local MLPs cost
// the same in every layer of a kind, so they are computed once per step per rank.
#pragma once

#include <cstdint>
#include <span>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/step_batch.h"

namespace moesim::sim {

struct RankCosts {
  double attention = 0;        // ns, one full-attention layer
  double attention_local = 0;  // ns, one local-attention (sliding/chunked window) layer, if any
  double dense_mlp = 0;
  double shared = 0;
  double router = 0;
  double lm_head = 0;
};

// The first layer with local attention, or -1 if every layer attends to the full context.
int first_local_layer(const models::ModelSpec& model);

RankCosts rank_costs(const models::ModelSpec& model, const calibration::CostModel& cost, const RankBatch& batch);

// Grouped GEMM of a rank's local experts (gate/up, activation, down) for the given counts.
double expert_gemm_ns(const models::ModelSpec& model, const calibration::CostModel& cost,
                      std::span<const std::int64_t> counts);

}  // namespace moesim::sim
