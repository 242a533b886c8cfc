// Expert placement (a registry): which expert each slot of each EP rank holds, per MoE layer,
// and how a token picks among an expert's replicas (docs/design.md §1 "remedies for skew", §3).
//
// An EP group of `ep` ranks has (experts + redundant) slots, slots_per_rank on each rank; slot s
// lives on rank s / slots_per_rank, rank r on node r / devices_per_node. Policies:
//   contiguous  expert e on rank e / (experts / ep) (no redundant slots)
//   striped     expert e on rank e % ep (no redundant slots)
//   eplb        DeepSeek EPLB (github.com/deepseek-ai/EPLB): give each redundant slot to the
//               expert with the highest load per replica, then pack the replicas onto ranks,
//               heaviest first, each onto the least-loaded rank with a free slot
//   eplb-hierarchical  EPLB's hierarchical policy: pack expert groups onto nodes (balanced
//               group loads), replicate within each node, then pack within the node's ranks
// Replica split (which replica a token-expert pair goes to):
//   even        uniformly among the expert's replicas
//   local       uniformly among the replicas on the source rank's node, if any; else all replicas
// Loads are per-expert weights (expected probabilities or observed counts); the placement is a
// pure function of them, so rebalancing from stale load is: place again from the load observed
// over the last interval and count the experts each rank must fetch (`moved_experts`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/routing_sampler.h"

namespace moesim::sim {

// The registries' values (placement_policies(), replica_splits(), eplb_statistics() list their
// names in this order).
enum class PlacementPolicy { kContiguous, kStriped, kEplb, kEplbHierarchical };
enum class ReplicaSplit { kEven, kLocal };
enum class EplbStatistics { kHistory, kOracle };

struct PlacementConfig {
  PlacementPolicy policy = PlacementPolicy::kContiguous;
  int redundant = 0;  // redundant slots per MoE layer over the EP group (eplb only)
  ReplicaSplit replica_split = ReplicaSplit::kEven;
  double rebalance_interval_s = 0.0;  // 0: static; else re-place every interval from observed load
  // What EPLB places from: `history`, the load of the `window_steps` steps before serving
  // starts, as deployments count it (DeepSeek's EPLB README: "a moving average of historical
  // statistics"; TensorRT-LLM counts iterations 100-200 of a run); or `oracle`, the routing
  // model's popularity at the first served step (a what-if: EPLB that knows the future).
  EplbStatistics statistics = EplbStatistics::kHistory;
  std::int64_t window_steps = 100;  // history: TensorRT-LLM's statistics window (100 iterations)
  // An EPLB policy (eplb or eplb-hierarchical): redundant slots, rebalancing, statistics.
  bool eplb() const { return policy == PlacementPolicy::kEplb || policy == PlacementPolicy::kEplbHierarchical; }
};

std::vector<workloads::RegistryEntry> eplb_statistics();

struct PlacementShape {
  int experts = 0;           // routed experts per MoE layer
  int ep = 1;                // EP ranks
  int redundant = 0;         // redundant slots per layer
  int devices_per_node = 8;  // ranks per node (node = scale-up domain)
  int expert_groups = 1;     // the model's expert groups (eplb-hierarchical packs groups to nodes)
  int slots_per_rank() const { return (experts + redundant) / ep; }
};

std::vector<workloads::RegistryEntry> placement_policies();
std::vector<workloads::RegistryEntry> replica_splits();
// Names to values (workloads::WorkloadError listing the valid names) and back.
PlacementPolicy placement_policy(std::string_view name);
ReplicaSplit replica_split(std::string_view name);
EplbStatistics eplb_statistics(std::string_view name);
std::string_view to_string(PlacementPolicy policy);
std::string_view to_string(ReplicaSplit split);
std::string_view to_string(EplbStatistics statistics);

class ExpertPlacement {
 public:
  // slot_expert[s]: the expert in slot s; every expert needs at least one slot.
  ExpertPlacement(const PlacementShape& shape, std::vector<int> slot_expert);

  int experts() const { return experts_; }
  int ranks() const { return ranks_; }
  int slots() const { return static_cast<int>(slot_expert_.size()); }
  int slots_per_rank() const { return slots_per_rank_; }
  int devices_per_node() const { return devices_per_node_; }
  int expert_of_slot(int slot) const { return slot_expert_[static_cast<std::size_t>(slot)]; }
  int rank_of_slot(int slot) const { return slot / slots_per_rank_; }
  int node_of_rank(int rank) const { return rank / devices_per_node_; }
  std::span<const int> replicas(int expert) const;  // slots holding the expert, ascending
  const std::vector<int>& slot_experts() const { return slot_expert_; }
  // The sampler's view (workloads/routing_sampler.h) under a replica split.
  workloads::RoutingTargets routing_targets(ReplicaSplit split) const;

 private:
  int experts_, ranks_, slots_per_rank_, devices_per_node_;
  std::vector<int> slot_expert_;
  std::vector<int> replica_first_, replica_slots_;  // CSR: expert → its slots
};

// Throws DeploymentError for an inconsistent shape (slots that do not
// divide over the ranks, redundant slots with a policy that has none, ...).
void validate_placement(const PlacementConfig& config, const PlacementShape& shape);
ExpertPlacement place_layer(const PlacementConfig& config, const PlacementShape& shape,
                            std::span<const double> expert_load);
// One placement per MoE layer from that layer's loads.
std::vector<ExpertPlacement> place_experts(const PlacementConfig& config, const PlacementShape& shape,
                                           std::span<const std::vector<double>> layer_loads);

// Experts each rank must load to go from `before` to `after`: slots of the rank whose new expert
// the rank did not hold before. Weight-migration bytes = moved × bytes per expert.
std::vector<int> moved_experts(const ExpertPlacement& before, const ExpertPlacement& after);

struct Rebalance {
  std::vector<ExpertPlacement> placement;    // per MoE layer
  std::vector<std::int64_t> moved_per_rank;  // experts fetched by each rank, summed over layers
  std::int64_t moved_total = 0;
};
// Re-places every layer from the load observed over the last interval (stale by construction).
Rebalance rebalance(const std::vector<ExpertPlacement>& current, const PlacementConfig& config,
                    const PlacementShape& shape, std::span<const std::vector<double>> observed_loads);

}  // namespace moesim::sim
