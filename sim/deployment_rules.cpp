#include "sim/deployment_rules.h"

#include <algorithm>
#include <cstdint>

#include "models/parallel_shard.h"
#include "sim/afd.h"
#include "sim/placement.h"
#include "sim/speculative.h"

namespace moesim::sim {

namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

std::optional<DeploymentProblem> problem(PoolField field, std::string message) {
  return DeploymentProblem{field, std::move(message)};
}

// "ranks 8", or "ranks 4 per stage (8 / pp 2)" with pipeline stages.
std::string stage_ranks_text(const PoolConfig& p) {
  if (p.pipeline_stages == 1) return "ranks " + str(p.ranks);
  return "ranks " + str(p.stage_ranks()) + " per stage (" + str(p.ranks) + " / pp " + str(p.pipeline_stages) + ")";
}

// The degrees of one side: `what` dp/ep x tp over the ranks they must cover.
std::optional<DeploymentProblem> degrees_problem(const PoolConfig& p, bool attention) {
  const int outer = attention ? p.attention_dp : p.moe_ep;
  const int tp = attention ? p.attention_tp : p.moe_tp;
  const int ranks = attention ? p.attention_ranks() : p.expert_ranks();
  const std::int64_t product = std::int64_t{outer} * tp;
  if (outer >= 1 && tp >= 1 && product == ranks) return std::nullopt;
  return problem(attention ? PoolField::kAttentionDp : PoolField::kMoeEp,
                 std::string(attention ? "attention dp " : "moe ep ") + str(outer) + " x tp " + str(tp) + " = " +
                     str(product) + " does not match " + degree_ranks_text(p, attention));
}

std::optional<DeploymentProblem> placement_rules(const PoolConfig& p, const models::ModelSpec& model,
                                                 int devices_per_node) {
  const PlacementConfig& pl = p.placement;
  const int experts = model.routed_experts;
  if (experts == 0) {
    if (pl.redundant > 0)
      return problem(PoolField::kRedundantExperts, "model '" + model.name + "' has no routed experts");
    return std::nullopt;
  }
  if (pl.redundant == 0 && experts % p.moe_ep != 0)
    return problem(PoolField::kMoeEp, str(experts) + " routed experts do not divide over ep " + str(p.moe_ep));
  if ((experts + pl.redundant) % p.moe_ep != 0)
    return problem(PoolField::kRedundantExperts, str(experts + pl.redundant) + " expert slots (" + str(experts) +
                                                     " + " + str(pl.redundant) + " redundant) do not divide over ep " +
                                                     str(p.moe_ep));
  if (pl.rebalance_interval_s > 0 && !pl.eplb())
    return problem(PoolField::kRebalanceInterval, "rebalancing needs an eplb placement; placement '" +
                                                      std::string(to_string(pl.policy)) + "' does not depend on load");
  if (pl.rebalance_interval_s > 0 && p.pipeline_stages > 1)
    return problem(PoolField::kRebalanceInterval,
                   "EPLB rebalancing is not modelled with pipeline stages (pp " + str(p.pipeline_stages) + ")");
  PlacementShape shape;
  shape.experts = experts;
  shape.ep = p.moe_ep;
  shape.redundant = pl.redundant;
  shape.devices_per_node = devices_per_node;
  shape.expert_groups = std::max(1, model.expert_groups);
  if (auto why = placement_problem(pl, shape); !why.empty())
    // Redundant slots with a policy that has none: the redundant count is what to change.
    return problem(pl.redundant > 0 && !pl.eplb() ? PoolField::kRedundantExperts : PoolField::kPlacement,
                   std::move(why));
  return std::nullopt;
}

}  // namespace

std::string DeploymentProblem::text() const {
  const bool afd = field == PoolField::kAfd || field == PoolField::kAfdAttentionRanks;
  return afd ? "afd: " + message : message;
}

std::string degree_ranks_text(const PoolConfig& p, bool attention) {
  if (!p.afd.enabled()) return stage_ranks_text(p);
  return attention ? "the " + str(p.attention_ranks()) + " attention ranks (afd)"
                   : "the " + str(p.expert_ranks()) + " expert ranks (ranks " + str(p.ranks) +
                         " - afd attention_ranks " + str(p.attention_ranks()) + ")";
}

std::optional<DeploymentProblem> pool_problem(const PoolConfig& p, const models::ModelSpec& model,
                                              int devices_per_node) {
  if (p.ranks < 1 || p.instances < 1)
    return problem(p.ranks < 1 ? PoolField::kRanks : PoolField::kInstances, "needs at least one instance of one rank");
  if (p.pipeline_stages < 1) return problem(PoolField::kPipelineStages, "needs at least one pipeline stage");
  if (p.ranks % p.pipeline_stages != 0)
    return problem(PoolField::kPipelineStages,
                   str(p.ranks) + " ranks do not split into pp " + str(p.pipeline_stages) + " stages");
  if (p.pipeline_stages > model.num_layers)
    return problem(PoolField::kPipelineStages, "pp " + str(p.pipeline_stages) + " exceeds the " +
                                                   str(model.num_layers) + " layers of " + model.name);
  if (auto why = afd_split_problem(p); !why.empty()) return problem(PoolField::kAfdAttentionRanks, std::move(why));
  if (auto why = afd_problem(p, model); !why.empty()) return problem(PoolField::kAfd, std::move(why));
  if (auto bad = degrees_problem(p, true)) return bad;
  if (auto why = models::attention_tp_problem(model, p.attention_tp); !why.empty())
    return problem(PoolField::kAttentionTp, std::move(why));
  if (auto bad = degrees_problem(p, false)) return bad;
  if (auto why = models::moe_tp_problem(model, p.moe_tp); !why.empty())
    return problem(PoolField::kMoeTp, std::move(why));
  const std::int64_t shared = std::int64_t{model.moe_intermediate} * model.shared_experts;
  if (p.moe_tp > 1 && shared > 0 && shared % p.stage_ranks() != 0)
    return problem(PoolField::kMoeTp, "the shared experts' intermediate size " + str(shared) +
                                          " does not divide over " + stage_ranks_text(p) +
                                          " (MoE TP splits it over every rank of the stage)");
  if (auto bad = placement_rules(p, model, devices_per_node)) return bad;
  return speculative_problem(p, model);
}

}  // namespace moesim::sim
