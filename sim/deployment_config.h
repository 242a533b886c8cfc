// Typed configuration of how the model is deployed on the cluster.
//
// This first model supports one colocated pool: `instances` replicas (currently 1), each spread
// over `ranks` devices, attention data-parallel on every rank (dp = ranks, tp = 1) and the routed
// experts of every MoE layer split evenly over `ep` = ranks ranks.
#pragma once

#include <cstdint>

#include "sim/overlap.h"

namespace moesim::sim {

struct BatchConfig {
  int max_running_per_rank = 64;           // requests decoding at once on one attention rank
  std::int64_t token_budget_per_rank = 4096;  // tokens (decode + prefill chunk) per rank per step
};

struct PoolConfig {
  int ranks = 8;
  int attention_dp = 8;
  int attention_tp = 1;
  int moe_ep = 8;
  BatchConfig batch;
  OverlapConfig overlap;
};

struct DeploymentConfig {
  PoolConfig colocated;
};

}  // namespace moesim::sim
