// Constructors of the concrete routing models, used by make_routing_model (routing_model.cpp).
// Each validates its parameters (WorkloadError naming the parameter).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "workloads/routing_model.h"

namespace moesim::workloads {

// Caps every probability at `cap` (= 1/top_k: a token picks an expert at most once, so no expert
// can receive more than 1/k of the assignments), moving the excess onto the uncapped experts in
// proportion to their weight (water-filling). probs must sum to 1 and cap * size >= 1.
void cap_probabilities(std::span<double> probs, double cap);

// routing_popularity.cpp: static per-layer popularity, the expert order permuted per layer.
std::unique_ptr<RoutingModel> make_uniform_routing();
// p(rank i) ∝ 1 / (i + 1)^s over a per-layer random permutation of the experts.
std::unique_ptr<RoutingModel> make_zipf_routing(int experts, double s, int top_k, std::uint64_t seed);
// `hot` experts (a per-layer random set) share `fraction` of the assignments, the rest share 1 - fraction.
std::unique_ptr<RoutingModel> make_hot_set_routing(int experts, int hot, double fraction, int top_k,
                                                   std::uint64_t seed);

// routing_drift.cpp: per-layer Dirichlet(alpha) popularity whose logits drift as an AR(1).
std::unique_ptr<RoutingModel> make_drift_routing(int experts, double alpha, double rho, double sigma,
                                                 std::int64_t interval_steps, int top_k, std::uint64_t seed);

// routing_layered.cpp: per-layer log-normal popularity, skew varying by layer, drifting over steps.
struct LayeredParams {
  double layer_sigma = 1.0, layer_sigma_spread = 0.4;  // RoutingConfig's layer_sigma, layer_sigma_spread
  double drift_sigma = 0.2;                            // step_sigma
  std::int64_t drift_steps = 200;                      // step_memory
  std::int64_t drift_interval_steps = 16;              // step_interval
};
std::unique_ptr<RoutingModel> make_layered_routing(int experts, const LayeredParams& p, int top_k, std::uint64_t seed);

// routing_trace_model.cpp: replays a routing-trace file (models/routing_trace.h).
std::unique_ptr<RoutingModel> make_trace_routing(const std::string& path, const RoutingShape& shape);

// routing_model.cpp: `base` with DeepSeek-style group-limited routing on top.
std::unique_ptr<RoutingModel> make_group_limited(std::unique_ptr<RoutingModel> base, GroupLimit limit);

}  // namespace moesim::workloads
