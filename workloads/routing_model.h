// Routing models (registry): how a batch's tokens pick experts in one MoE layer.
//
// A model draws counts, never per-token choices: for a batch of `tokens` tokens on one source
// rank, how many token-expert assignments go to each expert (top-k distinct experts per token,
// so the counts sum to tokens × k).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

class RoutingModel {
 public:
  virtual ~RoutingModel() = default;
  // Adds to `counts[e]` (size = experts) the assignments of `tokens` tokens of `layer`.
  virtual void draw_counts(int layer, std::int64_t tokens, int top_k, Rng& rng,
                           std::span<std::int64_t> counts) const = 0;
};

std::vector<RegistryEntry> routing_models();
// Throws std::invalid_argument listing the valid names for an unknown model.
std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, int experts);

}  // namespace moesim::workloads
