// Typed configuration of how the model is deployed on the cluster (DESIGN.md §2, §4).
//
// A deployment is either one colocated pool (prefill and decode on the same instances) or a
// disaggregated pair: a prefill pool whose instances compute prompts and hand the KV cache to a
// decode pool. A pool has `instances` identical model replicas of `ranks` devices each:
// attention data-parallel on every rank (dp = ranks, tp = 1) and the routed experts of every MoE
// layer split evenly over `ep` = ranks ranks. Pools occupy consecutive devices, prefill first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/overlap.h"
#include "sim/placement.h"

namespace moesim::sim {

enum class PoolRole { kColocated, kPrefill, kDecode };
const char* to_string(PoolRole role);

struct BatchConfig {
  int max_running_per_rank = 64;              // requests admitted at once on one attention rank
  std::int64_t token_budget_per_rank = 4096;  // tokens (decode + prefill chunk) per rank per step
  int kv_block_tokens = 64;                   // paged KV cache: tokens per block
};

// How dispatch and combine travel (topology/all_to_all.h registries).
struct MoeCommConfig {
  std::string algorithm = "direct";  // direct, hierarchical (DeepEP normal), low-latency (DeepEP LL)
  std::string fidelity = "analytic";  // analytic or flow
};

struct PoolConfig {
  PoolRole role = PoolRole::kColocated;
  int instances = 1;
  int ranks = 8;
  int attention_dp = 8;
  int attention_tp = 1;
  int moe_ep = 8;
  BatchConfig batch;
  OverlapConfig overlap;
  PlacementConfig placement;  // expert placement, redundant slots, rebalancing
  MoeCommConfig comm;
};

inline PoolConfig with_role(PoolRole role) {
  PoolConfig p;
  p.role = role;
  return p;
}

struct DeploymentConfig {
  bool disaggregated = false;
  PoolConfig colocated;                          // when !disaggregated
  PoolConfig prefill = with_role(PoolRole::kPrefill);  // when disaggregated
  PoolConfig decode = with_role(PoolRole::kDecode);    // when disaggregated

  // The pools in device order.
  std::vector<PoolConfig> pools() const {
    if (disaggregated) return {prefill, decode};
    return {colocated};
  }
};

}  // namespace moesim::sim
