#include "workloads/routing_model.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "workloads/binomial.h"
#include "workloads/routing_factories.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

// Keeps the base model's per-expert marginals; adds the group limit the sampler turns into
// correlated counts (routing_sampler.h).
class GroupLimitedRouting final : public RoutingModel {
 public:
  GroupLimitedRouting(std::unique_ptr<RoutingModel> base, GroupLimit limit) : base_(std::move(base)), limit_(limit) {}
  void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const override {
    base_->expert_distribution(moe_layer, step, probs);
  }
  bool is_static() const override { return base_->is_static(); }
  bool is_step_invariant() const override { return base_->is_step_invariant(); }
  std::optional<GroupLimit> group_limit() const override { return limit_; }
  std::optional<TraceTokens> trace_tokens(int moe_layer, std::int64_t step) const override {
    return base_->trace_tokens(moe_layer, step);
  }

 private:
  std::unique_ptr<RoutingModel> base_;
  GroupLimit limit_;
};

std::unique_ptr<RoutingModel> make_base(RoutingModelKind kind, const RoutingConfig& c, const RoutingShape& shape,
                                        std::uint64_t seed) {
  switch (kind) {
    case RoutingModelKind::kUniform: return make_uniform_routing();
    case RoutingModelKind::kZipf: return make_zipf_routing(shape.experts, c.s, shape.top_k, seed);
    case RoutingModelKind::kHotSet:
      return make_hot_set_routing(shape.experts, c.hot_experts, c.hot_fraction, shape.top_k, seed);
    case RoutingModelKind::kDirichletDrift:
      return make_drift_routing(shape.experts, c.alpha, c.drift_rho, c.drift_sigma, c.drift_interval_steps, shape.top_k,
                                seed);
    case RoutingModelKind::kLayeredLognormal:
      return make_layered_routing(shape.experts,
                                  {c.layer_sigma, c.layer_sigma_spread, c.step_sigma, c.step_memory, c.step_interval},
                                  shape.top_k, seed);
    case RoutingModelKind::kTrace: return make_trace_routing(c.trace_path, shape);
    case RoutingModelKind::kGroupLimited: break;
  }
  throw WorkloadError("group-limited routing: base must be another model");
}

}  // namespace

RoutingShape routing_shape(const models::ModelSpec& model) {
  RoutingShape s;
  s.experts = model.routed_experts;
  s.moe_layers = model.num_moe_layers();
  s.top_k = std::max(1, model.top_k);
  s.expert_groups = std::max(1, model.expert_groups);
  s.top_groups = std::max(1, model.top_groups);
  return s;
}

std::vector<RegistryEntry> routing_models() {
  return {
      {"uniform", "every expert equally likely in every layer (the balanced ideal)"},
      {"zipf", "expert popularity ~ 1/rank^s, a random expert order per layer (skewed, static)"},
      {"hot-set", "hot_experts random experts per layer receive hot_fraction of the assignments"},
      {"dirichlet-drift", "Dirichlet(alpha) popularity per layer whose logits drift as an AR(1) over steps"},
      {"layered-lognormal",
       "log-normal popularity per layer, skew varying by layer, drifting over steps; defaults "
       "fitted to measured DeepSeek-R1 serving (the library's DeepSeek routing)"},
      {"group-limited", "`base` popularity, each token's experts from at most top_groups of groups (DeepSeek)"},
      {"trace", "replays the per-token expert choices of a routing-trace file"},
  };
}

RoutingModelKind routing_model_kind(std::string_view name) {
  return registry_value<RoutingModelKind>(routing_models(), name, "routing model");
}

std::string_view to_string(RoutingModelKind kind) { return registry_name(routing_models(), kind); }

std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, const RoutingShape& shape,
                                                 std::uint64_t seed) {
  if (shape.experts <= 0) throw WorkloadError("routing model needs at least one expert");
  const bool group_model = config.model == RoutingModelKind::kGroupLimited;
  if (group_model && config.base == RoutingModelKind::kGroupLimited)
    throw WorkloadError("group-limited routing: base must be another model");
  auto model = make_base(group_model ? config.base : config.model, config, shape, seed);
  const CountMethod counts = config.counts;
  model->set_count_method(counts);
  if (!group_model && !config.group_limit.enabled) return model;
  GroupLimit limit{config.group_limit.groups > 0 ? config.group_limit.groups : shape.expert_groups,
                   config.group_limit.top_groups > 0 ? config.group_limit.top_groups : shape.top_groups};
  if (limit.groups < 1 || shape.experts % limit.groups != 0)
    throw WorkloadError("group-limited routing: " + std::to_string(shape.experts) + " experts do not split into " +
                        std::to_string(limit.groups) + " equal groups");
  if (limit.top_groups < 1 || limit.top_groups > limit.groups)
    throw WorkloadError("group-limited routing needs 1 <= top_groups <= groups");
  auto limited = make_group_limited(std::move(model), limit);
  limited->set_count_method(counts);
  return limited;
}

std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, int experts) {
  RoutingShape shape;
  shape.experts = experts;
  return make_routing_model(config, shape, 0);
}

std::unique_ptr<RoutingModel> make_group_limited(std::unique_ptr<RoutingModel> base, GroupLimit limit) {
  return std::make_unique<GroupLimitedRouting>(std::move(base), limit);
}

void sample_multinomial(std::int64_t n, std::span<const double> probs, Rng& rng, std::span<std::int64_t> out) {
  double mass = std::accumulate(probs.begin(), probs.end(), 0.0);
  for (std::size_t i = 0; i < probs.size() && n > 0; ++i) {
    if (probs[i] <= 0) continue;
    std::int64_t c;
    if (i + 1 == probs.size() || probs[i] >= mass) {
      c = n;
    } else {
      const double p = std::clamp(probs[i] / mass, 0.0, 1.0);
      c = sample_binomial(n, p, rng);
    }
    out[i] += c;
    n -= c;
    mass -= probs[i];
  }
}

}  // namespace moesim::workloads
