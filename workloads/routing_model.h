// Routing models (registry): where the token-expert assignments of one MoE layer go.
//
// A model gives, per MoE layer, the probability that one token-expert assignment lands on each
// expert (the layer's expert popularity). Batches are then drawn as counts with
// `sample_multinomial` (DESIGN.md §4: counts, never per-token choices). Drawing the top-k
// assignments of a token independently ignores that a token's k experts are distinct; for
// uniform routing over E experts this overstates the per-expert count variance by
// (1 - 1/E) / (1 - k/E), 3 % for DeepSeek-V3.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

class RoutingModel {
 public:
  virtual ~RoutingModel() = default;
  // Fills `probs` (size = experts) with the layer's assignment probabilities, summing to 1.
  // `step` is the index of the forward step (models that drift over time use it).
  virtual void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const = 0;
  // True when expert_distribution depends on neither layer nor step (callers may cache it).
  virtual bool is_static() const = 0;
};

std::vector<RegistryEntry> routing_models();
// Throws std::invalid_argument listing the valid names for an unknown model.
std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, int experts);

// Adds to out[i] a Multinomial(n, probs) draw, by conditional binomials; probs need not be
// normalised (zero total mass draws nothing).
void sample_multinomial(std::int64_t n, std::span<const double> probs, Rng& rng, std::span<std::int64_t> out);

}  // namespace moesim::workloads
