#include "sim/placement.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "sim/check.h"
#include "sim/deployment_error.h"
#include "sim/deployment_rules.h"
#include "sim/placement_eplb.h"

namespace moesim::sim {
namespace {

int node_count(const PlacementShape& s) { return (s.ep + s.devices_per_node - 1) / s.devices_per_node; }

}  // namespace

std::vector<workloads::RegistryEntry> placement_policies() {
  return {
      {"contiguous", "expert e on rank e / (experts / ep); no redundant slots"},
      {"striped", "expert e on rank e % ep; no redundant slots"},
      {"eplb", "DeepSeek EPLB: replicate the hottest experts into the redundant slots, pack by load"},
      {"eplb-hierarchical", "EPLB hierarchical: expert groups packed onto nodes, then replicate and pack per node"},
  };
}

std::vector<workloads::RegistryEntry> eplb_statistics() {
  return {
      {"history", "EPLB places from the load of the window_steps steps before serving (as deployed)"},
      {"oracle", "EPLB places from the popularity of the first served step (a what-if)"},
  };
}

std::vector<workloads::RegistryEntry> replica_splits() {
  return {
      {"even", "a pair goes to one of the expert's replicas uniformly at random"},
      {"local", "prefer the replicas on the source rank's node; all replicas if it has none"},
  };
}

PlacementPolicy placement_policy(std::string_view name) {
  return workloads::registry_value<PlacementPolicy>(placement_policies(), name, "placement policy");
}
ReplicaSplit replica_split(std::string_view name) {
  return workloads::registry_value<ReplicaSplit>(replica_splits(), name, "replica split");
}
EplbStatistics eplb_statistics(std::string_view name) {
  return workloads::registry_value<EplbStatistics>(eplb_statistics(), name, "EPLB statistics");
}
std::string_view to_string(PlacementPolicy policy) { return workloads::registry_name(placement_policies(), policy); }
std::string_view to_string(ReplicaSplit split) { return workloads::registry_name(replica_splits(), split); }
std::string_view to_string(EplbStatistics statistics) {
  return workloads::registry_name(eplb_statistics(), statistics);
}

ExpertPlacement::ExpertPlacement(const PlacementShape& shape, std::vector<int> slot_expert)
    : experts_(shape.experts),
      ranks_(shape.ep),
      slots_per_rank_(shape.slots_per_rank()),
      devices_per_node_(std::max(1, shape.devices_per_node)),
      slot_expert_(std::move(slot_expert)) {
  if (slots_per_rank_ < 1 || slot_expert_.size() != static_cast<std::size_t>(ranks_ * slots_per_rank_))
    throw InvariantError("placement: slot count does not match ep x slots per rank");
  replica_first_.assign(static_cast<std::size_t>(experts_) + 1, 0);
  for (int e : slot_expert_) {
    if (e < 0 || e >= experts_) throw InvariantError("placement: slot holds no valid expert");
    ++replica_first_[static_cast<std::size_t>(e) + 1];
  }
  for (int e = 0; e < experts_; ++e) {
    if (replica_first_[static_cast<std::size_t>(e) + 1] == 0)
      throw InvariantError("placement: expert " + std::to_string(e) + " has no slot");
    replica_first_[static_cast<std::size_t>(e) + 1] += replica_first_[static_cast<std::size_t>(e)];
  }
  replica_slots_.resize(slot_expert_.size());
  auto next = replica_first_;
  for (std::size_t s = 0; s < slot_expert_.size(); ++s)
    replica_slots_[static_cast<std::size_t>(next[static_cast<std::size_t>(slot_expert_[s])]++)] = static_cast<int>(s);
}

std::span<const int> ExpertPlacement::replicas(int expert) const {
  const auto b = static_cast<std::size_t>(replica_first_[static_cast<std::size_t>(expert)]);
  const auto e = static_cast<std::size_t>(replica_first_[static_cast<std::size_t>(expert) + 1]);
  return std::span<const int>(replica_slots_).subspan(b, e - b);
}

workloads::RoutingTargets ExpertPlacement::routing_targets(ReplicaSplit split) const {
  workloads::RoutingTargets t;
  t.ranks = ranks_;
  t.experts = experts_;
  t.slot_expert = slot_expert_;
  t.slot_rank.resize(slot_expert_.size());
  for (int s = 0; s < slots(); ++s) t.slot_rank[static_cast<std::size_t>(s)] = rank_of_slot(s);
  const bool local = split == ReplicaSplit::kLocal;
  t.classes = local ? node_of_rank(ranks_ - 1) + 1 : 1;
  t.source_class.resize(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) t.source_class[static_cast<std::size_t>(r)] = local ? node_of_rank(r) : 0;
  const auto n = slot_expert_.size();
  t.slot_share.assign(static_cast<std::size_t>(t.classes) * n, 0.0);
  for (int c = 0; c < t.classes; ++c)
    for (int e = 0; e < experts_; ++e) {
      const auto reps = replicas(e);
      const auto on_node = [&](int s) { return node_of_rank(rank_of_slot(s)) == c; };
      const auto near = local ? std::count_if(reps.begin(), reps.end(), on_node) : 0;
      for (int s : reps)
        if (near == 0 || on_node(s))
          t.slot_share[static_cast<std::size_t>(c) * n + static_cast<std::size_t>(s)] =
              1.0 / static_cast<double>(near > 0 ? near : static_cast<std::ptrdiff_t>(reps.size()));
    }
  return t;
}

std::string placement_problem(const PlacementConfig& config, const PlacementShape& s) {
  const std::string policy = "placement '" + std::string(to_string(config.policy)) + "': ";
  if (s.experts < 1 || s.ep < 1 || s.redundant < 0 || s.devices_per_node < 1) return policy + "needs experts, ep >= 1";
  if ((s.experts + s.redundant) % s.ep != 0)
    return policy + std::to_string(s.experts) + " experts + " + std::to_string(s.redundant) +
           " redundant slots do not divide over ep " + std::to_string(s.ep);
  if (!config.eplb() && s.redundant > 0) return policy + "has no redundant slots (use eplb)";
  if (!(config.rebalance_interval_s >= 0)) return policy + "rebalance interval must be >= 0";
  if (config.policy == PlacementPolicy::kEplbHierarchical) {
    const int nodes = node_count(s);
    if (s.ep % s.devices_per_node != 0) return policy + "ep must be a multiple of devices_per_node";
    const int groups = s.expert_groups > 1 ? s.expert_groups : nodes;
    if (groups % nodes != 0 || s.experts % groups != 0)
      return policy + std::to_string(groups) + " expert groups do not split over " + std::to_string(nodes) + " nodes";
  }
  return "";
}

void validate_placement(const PlacementConfig& config, const PlacementShape& s) {
  if (auto why = placement_problem(config, s); !why.empty()) throw DeploymentError(why);
}

ExpertPlacement place_layer(const PlacementConfig& config, const PlacementShape& s, std::span<const double> load) {
  validate_placement(config, s);
  if (load.size() != static_cast<std::size_t>(s.experts)) throw InvariantError("placement: one load per expert");
  const int spr = s.slots_per_rank();
  std::vector<int> slot_expert(static_cast<std::size_t>(s.ep * spr));
  if (config.policy == PlacementPolicy::kContiguous) {
    std::iota(slot_expert.begin(), slot_expert.end(), 0);
  } else if (config.policy == PlacementPolicy::kStriped) {
    for (int r = 0; r < s.ep; ++r)
      for (int i = 0; i < spr; ++i) slot_expert[static_cast<std::size_t>(r * spr + i)] = i * s.ep + r;
  } else {
    // No information (all zero) → every expert equally loaded.
    std::vector<double> w(load.begin(), load.end());
    if (std::all_of(w.begin(), w.end(), [](double x) { return !(x > 0); })) std::fill(w.begin(), w.end(), 1.0);
    if (config.policy == PlacementPolicy::kEplb) {
      slot_expert = eplb::place_global(w, s.ep, spr);
    } else {
      const int nodes = node_count(s);
      slot_expert = eplb::place_hierarchical(w, s.ep, spr, nodes, s.expert_groups > 1 ? s.expert_groups : nodes);
    }
  }
  return ExpertPlacement(s, std::move(slot_expert));
}

std::vector<ExpertPlacement> place_experts(const PlacementConfig& config, const PlacementShape& shape,
                                           std::span<const std::vector<double>> layer_loads) {
  std::vector<ExpertPlacement> out;
  out.reserve(layer_loads.size());
  for (const auto& load : layer_loads) out.push_back(place_layer(config, shape, load));
  return out;
}

std::vector<int> moved_experts(const ExpertPlacement& before, const ExpertPlacement& after) {
  if (before.ranks() != after.ranks() || before.slots() != after.slots())
    throw InvariantError("moved_experts: placements of different shapes");
  std::vector<int> moved(static_cast<std::size_t>(after.ranks()), 0);
  const int spr = after.slots_per_rank();
  for (int r = 0; r < after.ranks(); ++r) {
    const auto& old_slots = before.slot_experts();
    const auto first = old_slots.begin() + r * spr;
    std::vector<int> had(first, first + spr);
    for (int i = 0; i < spr; ++i) {
      const int e = after.expert_of_slot(r * spr + i);
      if (const auto it = std::find(had.begin(), had.end(), e); it != had.end()) {
        had.erase(it);  // already resident: no fetch (one resident copy serves one slot)
      } else {
        ++moved[static_cast<std::size_t>(r)];
      }
    }
  }
  return moved;
}

Rebalance rebalance(const std::vector<ExpertPlacement>& current, const PlacementConfig& config,
                    const PlacementShape& shape, std::span<const std::vector<double>> observed_loads) {
  if (current.size() != observed_loads.size()) throw InvariantError("rebalance: one load vector per layer");
  Rebalance out;
  out.placement = place_experts(config, shape, observed_loads);
  out.moved_per_rank.assign(static_cast<std::size_t>(shape.ep), 0);
  for (std::size_t l = 0; l < current.size(); ++l) {
    const auto moved = moved_experts(current[l], out.placement[l]);
    for (std::size_t r = 0; r < moved.size(); ++r) {
      out.moved_per_rank[r] += moved[r];
      out.moved_total += moved[r];
    }
  }
  return out;
}

}  // namespace moesim::sim
