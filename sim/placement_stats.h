// Load-imbalance statistics of one MoE layer's routing under a placement (docs/design.md §1: "the
// layer cannot finish before its slowest rank").
//
// imbalance = (max - mean) / mean, over ranks (pairs each EP rank receives) and over slots
// (pairs each physical expert copy receives); cv = standard deviation / mean (population).
// With a capacity factor cf > 0, each slot accepts at most ceil(cf × pairs / slots) pairs
// (GShard/Switch-style capacity per physical expert) and the excess is dropped.
#pragma once

#include <cstdint>
#include <span>

#include "sim/placement.h"

namespace moesim::sim {

struct ImbalanceStats {
  std::int64_t pairs = 0;     // token-expert pairs in the layer
  double rank_imbalance = 0;  // (max - mean) / mean of rank load
  double slot_imbalance = 0;  // (max - mean) / mean of slot load
  double rank_cv = 0;
  double slot_cv = 0;
  int hottest_rank = -1;
  int hottest_expert = -1;             // by pairs over all its replicas
  double hottest_expert_share = 0;     // its share of the layer's pairs
  std::int64_t capacity_per_slot = 0;  // 0: no capacity limit
  std::int64_t dropped = 0;            // pairs over capacity
};

// slot_counts: pairs per slot (size = placement.slots()).
ImbalanceStats layer_imbalance(const ExpertPlacement& placement, std::span<const std::int64_t> slot_counts,
                               double capacity_factor = 0.0);

}  // namespace moesim::sim
