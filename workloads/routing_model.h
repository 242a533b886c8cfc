// Routing models (registry): where the token-expert assignments of one MoE layer go.
//
// A model gives, per MoE layer and forward step, the probability that one token-expert
// assignment lands on each expert (the layer's expert popularity). Batches are drawn as counts
// (docs/design.md §4), by workloads::RoutingSampler (routing_sampler.h) or `sample_multinomial`.
// Drawing the top-k assignments of a token independently ignores that a token's k experts are
// distinct; for uniform routing over E experts this overstates the per-expert count variance by
// (1 - 1/E) / (1 - k/E), 3 % for DeepSeek-V3.
//
// Two optional capabilities refine the counts: `group_limit()` (DeepSeek-style group-limited
// routing: a token's experts come from at most M of G groups, which the sampler turns into
// correlated counts) and `trace_tokens()` (a routing trace: the sampler replays the recorded
// per-token choices instead of drawing). Models memoise per-layer state, so one instance must not
// be shared between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/model_spec.h"
#include "workloads/binomial.h"
#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

struct GroupLimit {
  int groups = 1;      // experts split into this many contiguous, equal groups
  int top_groups = 1;  // each token uses at most this many groups
};

// The recorded choices of one MoE layer at one step: tokens × top_k expert ids, token-major.
struct TraceTokens {
  std::span<const std::uint16_t> ids;
  int top_k = 0;
};

class RoutingModel {
 public:
  virtual ~RoutingModel() = default;
  // Fills `probs` (size = experts) with the layer's assignment probabilities, summing to 1.
  // `step` is the index of the forward step (models that drift over time use it).
  virtual void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const = 0;
  // True when expert_distribution depends on neither layer nor step (callers may cache it).
  virtual bool is_static() const = 0;
  // True when expert_distribution does not depend on the step (callers may cache it per layer).
  virtual bool is_step_invariant() const { return is_static(); }
  virtual std::optional<GroupLimit> group_limit() const { return std::nullopt; }
  virtual std::optional<TraceTokens> trace_tokens(int /*moe_layer*/, std::int64_t /*step*/) const {
    return std::nullopt;
  }
  // How samplers draw this model's counts (RoutingConfig::counts, workloads/binomial.h); exact
  // unless make_routing_model was told otherwise.
  CountMethod count_method() const { return count_method_; }
  void set_count_method(CountMethod method) { count_method_ = method; }

 private:
  CountMethod count_method_ = CountMethod::kExact;
};

// What a routing model needs to know about the model it routes for.
struct RoutingShape {
  int experts = 0;
  int moe_layers = 0;  // 0: unknown (models grow their per-layer state on demand)
  int top_k = 1;
  int expert_groups = 1;  // the model's own group limit, used when group_limit.groups == 0
  int top_groups = 1;
};
RoutingShape routing_shape(const models::ModelSpec& model);

// In the order of RoutingModelKind (workload_config.h).
std::vector<RegistryEntry> routing_models();
RoutingModelKind routing_model_kind(std::string_view name);  // WorkloadError for an unknown name
std::string_view to_string(RoutingModelKind kind);
// Throws WorkloadError naming a bad parameter, or for a bad routing-trace file. `seed` drives the per-layer expert
// permutations and drifts (give it its own stream of the scenario seed).
std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, const RoutingShape& shape,
                                                 std::uint64_t seed);
std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, int experts);  // seed 0, top-1 shape

// Adds to out[i] a Multinomial(n, probs) draw, by conditional binomials; probs need not be
// normalised (zero total mass draws nothing).
void sample_multinomial(std::int64_t n, std::span<const double> probs, Rng& rng, std::span<std::int64_t> out);

}  // namespace moesim::workloads
