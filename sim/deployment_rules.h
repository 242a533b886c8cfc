// The rules a pool's configuration must follow to run a model, written once: sim::Deployment
// throws DeploymentError with the first one a pool breaks, and the scenario loader reports the
// same message at the YAML key of the field the rule concerns (docs/scenario-reference.md,
// "deployment"). The rules on one field alone that only YAML can break (a scalar's range, a key
// given without the one it needs) stay with the loader.
#pragma once

#include <optional>
#include <string>

#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/placement.h"

namespace moesim::sim {

// The PoolConfig field a rule is about: where the loader points (the YAML key the user wrote, or
// the nearest one given when the rule is about a default).
enum class PoolField {
  kRanks,
  kInstances,
  kPipelineStages,
  kAttentionDp,
  kAttentionTp,
  kMoeEp,
  kMoeTp,
  kPlacement,
  kRedundantExperts,
  kRebalanceInterval,
  kAfd,
  kAfdAttentionRanks,
  kSpeculative,
  kSpeculativeMethod,
  kSpeculativeAcceptance,
  kSpeculativeDraftModel,
};

struct DeploymentProblem {
  PoolField field;
  std::string message;
  // The message where no position names the field: an AFD rule names its section ("afd: ...").
  std::string text() const;
};

// The first rule `pool` breaks on `model` with nodes of `devices_per_node` ranks, or none: the
// ranks and pipeline stages, attention-FFN disaggregation (sim/afd.h), the attention and MoE
// degrees and what they must divide, the expert slots and the placement (sim/placement.h),
// rebalancing, and speculative decoding (sim/speculative.h).
std::optional<DeploymentProblem> pool_problem(const PoolConfig& pool, const models::ModelSpec& model,
                                              int devices_per_node);

// Why `config` cannot place the experts of `shape` ("placement '<policy>': ..."; redundant slots
// with a policy that has none, node groups that do not split, ...), or "" when it can; what
// validate_placement() throws (sim/placement.cpp).
std::string placement_problem(const PlacementConfig& config, const PlacementShape& shape);

// What attention dp x tp (attention) or moe ep x tp (!attention) must cover, as the messages name
// it: "ranks 8", "ranks 4 per stage (8 / pp 2)", "the 4 attention ranks (afd)" or "the 12 expert
// ranks (ranks 16 - afd attention_ranks 4)".
std::string degree_ranks_text(const PoolConfig& pool, bool attention);

}  // namespace moesim::sim
