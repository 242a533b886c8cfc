// LayerRouting: where one MoE layer's token-expert pairs go, for one (micro-)batch of an
// instance (docs/design.md §4: counts, never per-token choices).
//
// The experts of every MoE layer sit in slots placed by the pool's placement policy
// (sim/placement.h: contiguous, striped, EPLB with redundant slots); EPLB places from the mean
// popularity of the steps before serving (`history`, as deployments do) or from the first served
// step's (`oracle`) and, with a rebalance interval, places again from the load observed since the
// last rebalance. Each draw gives the pairs from every
// source rank to every destination rank and to every slot (workloads/routing_sampler.h).
//
// With the analytic fidelity on a preset fabric the routing is drawn as margins
// (workloads/routing_margins.h: per source and node, per receiving rank and slot), which is all
// the closed-form all-to-all needs (topology/aggregated_all_to_all.h), in O(ranks x nodes) per
// layer; otherwise (flow fidelity, custom fabrics) as the full source x destination matrix.
//
// Traffic for the all-to-all is expressed in tokens: once per token-expert pair (low-latency
// kernels), once per destination rank and once per destination node (a token reaching several
// experts on one rank or node crosses once). Counts do not say which pairs share a token, so the
// distinct tokens are estimated from the pairs: with a share q of a source's pairs going to a
// destination, a token reaches it with probability 1 - (1 - q)^k while sending k·q pairs there
// (q: the realised share for a full draw, the model's share for margins).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/model_spec.h"
#include "sim/deployment.h"
#include "sim/law_form.h"
#include "sim/placement.h"
#include "topology/all_to_all_algorithm.h"
#include "topology/cluster.h"
#include "topology/traffic.h"
#include "workloads/rng.h"
#include "workloads/routing_model.h"
#include "workloads/routing_sampler.h"

namespace moesim::sim {

// The mean popularity of layer `moe_layer` over the model's steps [first, first + window): what
// EPLB's statistics of those steps estimate.
void window_popularity(const workloads::RoutingModel& routing, int moe_layer, std::int64_t first, std::int64_t window,
                       std::span<double> out);

class LayerRouting {
 public:
  LayerRouting(const models::ModelSpec& model, const InstanceLayout& layout, const workloads::RoutingModel& routing,
               const topology::Cluster& cluster);

  // Draws layer `moe_layer` of step `step` for tokens[r] tokens on each rank r.
  void draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, workloads::Rng& rng);
  // A number that changes whenever the law of the layer's draw at `step` may have changed (its
  // expert popularity or its placement targets): two draws of the same version and tokens per
  // rank are draws of one law (sim/route_memo.h). Nullopt when the step's choices are replayed
  // from a routing trace, which a draw cannot stand in for.
  std::optional<std::uint64_t> law_version(int moe_layer, std::int64_t step);
  // The law of the layer's draw at `step` as layers share it (sim/route_memo.h, shared): every
  // MoE layer whose draw has the same law up to relabelling its slots within ranks (the same
  // LawForm, sim/law_form.h: EPLB placements of permuted popularities, or the same popularity and
  // placement) now gets the same `version` (a number no other law of the run gets), `leader` is
  // the layer that first had that law, `layers` how many layers have it now (those asked so far).
  // Nullopt as for law_version. A draw shared so is kept in canonical slot order
  // (canonical_slots) and read back per layer (canonical_expert_counts).
  struct SharedLaw {
    int leader = 0;
    std::uint64_t version = 0;
    int layers = 1;
  };
  std::optional<SharedLaw> shared_law(int moe_layer, std::int64_t step);
  // Counts a replayed draw's expert counts towards the load the next rebalance places from, as
  // draw() counts its own.
  void observe(int moe_layer, std::span<const std::int64_t> expert_counts);
  bool observes() const { return config_.rebalance_interval_s > 0; }  // observe() counts anything
  // A replayed shared draw (kept in canonical order) towards layer `moe_layer`'s expert load for
  // the statistics: summed in canonical order while the layer's form stays (one vector addition
  // instead of a walk into expert order per replay) and read back in expert order when it changes
  // (shared_law) or take_replayed() asks (shared_law first). Counts add as integers, so the totals
  // are exactly those of booking each replay's expert counts.
  void add_replayed(int moe_layer, std::span<const std::int64_t> canonical);
  // Adds what add_replayed() summed for layer `moe_layer`, in expert order, to `out` and clears it.
  void take_replayed(int moe_layer, std::span<std::int64_t> out);
  // The last draw's slot counts in the canonical order of its layer's law (shared_law first).
  void canonical_slots(std::vector<std::int64_t>& out) const;
  // A draw kept in canonical order, as layer `moe_layer`'s expert counts (shared_law first).
  void canonical_expert_counts(int moe_layer, std::span<const std::int64_t> canonical,
                               std::span<std::int64_t> out) const;

  // Margins (analytic fidelity on a preset fabric) or the full matrix.
  bool aggregated() const { return aggregated_; }
  std::int64_t pairs(int src, int dst) const { return counts_.pair(src, dst); }  // full matrix only
  // Pairs received by each slot of `rank` (its grouped GEMM's per-group rows).
  std::span<const std::int64_t> local_counts(int rank) const;
  std::int64_t total_pairs() const { return total_pairs_; }
  std::int64_t total_received() const { return total_received_; }
  int slots_per_rank() const { return shape_.slots_per_rank(); }
  // The last draw's counts (per expert, per slot, per rank pair).
  // The last draw's pairs per expert (replicas summed) and per slot, on either path.
  std::span<const std::int64_t> expert_counts() const {
    return aggregated_ ? margins_.expert_counts : counts_.expert_counts;
  }
  std::span<const std::int64_t> slot_counts() const { return aggregated_ ? margins_.slot_counts : counts_.slot_counts; }

  // The last draw's traffic in tokens (scale by bytes per token for dispatch or combine).
  // `per_pair_only` fills only the per-pair matrix (all that low-latency kernels need).
  void traffic(topology::AllToAllTraffic& out, bool per_pair_only = false) const;
  // The last draw's traffic as margins (aggregated() only): the views `algorithm` reads (the
  // low-latency kernels: pairs; the others rank tokens, and node tokens too where it forwards:
  // hierarchical). Returns the tokens the algorithm puts on the fabric: the pairs sent
  // (low-latency), else the rank tokens.
  double traffic(topology::AggregatedTraffic& out, const topology::AllToAllAlgorithm& algorithm) const;
  // Token-expert pairs the last draw sent to other ranks (self pairs stay local).
  std::int64_t sent_pairs() const;
  // The traffic invariant (sim/invariants.h) on the last draw's margins: every rank sends its
  // pairs and receives what its slots process, within and between nodes alike.
  void check_margins() const;

  // Re-places every layer from the expert load observed since the last call; returns the
  // experts each rank must fetch (summed over layers).
  std::vector<std::int64_t> rebalance();
  const ExpertPlacement& placement(int moe_layer) const { return placement_[static_cast<std::size_t>(moe_layer)]; }

 private:
  const models::ModelSpec& model_;
  InstanceLayout layout_;
  PlacementShape shape_;
  PlacementConfig config_;
  std::vector<ExpertPlacement> placement_;          // per MoE layer
  std::vector<workloads::RoutingTargets> targets_;  // per MoE layer, each with its own revision
  std::uint64_t revisions_ = 0;                     // the last revision given to targets_
  std::vector<std::vector<double>> observed_;       // per MoE layer, per expert, since last rebalance
  const workloads::RoutingModel& model_routing_;
  std::vector<std::vector<double>> law_probs_;  // law_version: per MoE layer, the popularity last seen
  std::vector<std::uint64_t> law_changes_;      // ... and how often it changed
  std::vector<double> law_scratch_;
  std::vector<double> law_key_;  // shared_law: the key of the law being looked up (sim/law_form.h)
  // shared_law: the laws layers have now, and each layer's (the law_version it was found at).
  struct LawEntry {
    std::uint64_t version = 0;
    int leader = 0, layers = 0;  // layers 0: a free entry
    std::vector<double> key;     // the layers' law key (sim/law_form.h)
  };
  struct LayerLaw {
    bool known = false;
    std::uint64_t version = 0;  // law_version's when the entry was found
    std::size_t entry = 0;
    LawForm form;                                // the layer's, with its canonical slot order
    std::vector<std::int64_t> replayed;          // add_replayed's sum since the form's, canonical order
    std::vector<std::int64_t> replayed_experts;  // ... and under earlier forms, expert order
    bool any_replayed = false;                   // `replayed` holds counts
  };
  void fold_replayed(LayerLaw& law);  // `replayed` into `replayed_experts`, by the layer's form
  std::vector<LawEntry> laws_;
  std::vector<LayerLaw> layer_law_;  // per MoE layer
  std::uint64_t law_versions_ = 0;   // the last version given to a LawEntry
  workloads::RoutingSampler sampler_;
  workloads::LayerCounts counts_;
  workloads::RoutingMargins margins_;
  bool aggregated_ = false;
  std::int64_t total_pairs_ = 0, total_received_ = 0;
  std::int64_t step_offset_ = 0;            // EPLB from history: serving step s is the routing model's s + window
  int nodes_ = 1;                           // cluster nodes (the node matrix is ranks x cluster nodes)
  std::vector<int> rank_node_;              // [rank] cluster node of its device
  std::vector<int> rank_domain_;            // [rank] dense scale-up domain (topology::rank_domains)
  bool per_source_nodes_ = false;           // margins with each source's pairs per node (hierarchical)
  int moe_layer_ = 0;                       // the last draw's layer, and each source's pairs in it
  std::vector<std::int64_t> source_pairs_;  // (tokens × top_k), for the traffic invariant
  mutable std::vector<double> rank_rho_, node_rho_, node_q_rho_, node_factor_, row_;  // traffic() scratch
};

}  // namespace moesim::sim
