// RoutingSetup: the part of a routing sampler (routing_sampler.h) that is kept between draws. It
// holds what one MoE layer's draws derive from the layer's expert popularity and the placement
// targets alone — no tokens, no randomness — so a draw only adds its tokens and random numbers:
//  - the popularity itself: a view of the layer's expert distribution at the step, kept per
//    layer for models whose popularity does not change with the step;
//  - per MoE layer, a LayerRoutingSetup for the margins draw (routing_margins.h): slot and rank
//    weights per virtual class, the node and slot layout, the pattern groups, the conditional
//    split probabilities, and the model's masses.
// A layer's setup is rebuilt exactly when its popularity or its targets differ from what it was
// built from: targets of the same nonzero revision are the same, revision 0 compares them in
// full; the popularity is compared in full unless the model is step-invariant. A kept setup is
// therefore bit for bit a fresh one, and every draw gives what a fresh sampler would.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/routing_model.h"
#include "workloads/routing_targets.h"

namespace moesim::workloads {

// What the margins draw reads of one layer's setup. Classes are virtual (routing_margins.h): a
// source class, and with a group limit also a token group (v = class * groups + group).
struct LayerRoutingSetup {
  std::vector<double> w;                            // [class * slots + slot] pair probability of a slot
  std::vector<double> q;                            // [class * ranks + rank] pair probability of a rank
  std::vector<double> vw;                           // [v * slots + slot] a virtual class's slot weights
  std::vector<double> vq;                           // [v * ranks + rank] ... and rank weights
  std::vector<double> node_q;                       // [v * nodes + node] ... and node weights
  std::vector<double> share_by_node;                // [class * slots + i] replica shares of the slots in node order
  std::vector<std::size_t> slot_group;              // [slot] token group of the slot's expert
  std::vector<std::size_t> rank_node;               // [rank] node
  std::vector<std::size_t> node_first, node_ranks;  // each node's ranks: node_ranks[node_first[n] ..]
  std::vector<std::size_t> slot_first, order;       // each rank's slots: order[slot_first[d] ..]
  std::vector<std::size_t> rank_pos;                // [rank] place among its node's ranks
  std::vector<std::size_t> node_slots, node_slot_first;  // each node's slots, contiguous
  // Pattern groups (routing_setup.cpp): pattern[v * nodes + n] is the group of class v on node n;
  // group g covers node group_node[g], splits as class group_class[g], and its receipts per rank
  // are kept at [group_first[g] ..).
  std::vector<std::size_t> pattern, group_first, group_node, group_class;
  // Conditional split probabilities (binomial.h, multinomial_conditionals) of the fixed-weight
  // splits: rank_cond[v * ranks + node_first[n] + k], class v's pairs on node n over its ranks;
  // slot_cond[v * slots + slot_first[d] + i], class v's pairs on rank d over its slots.
  std::vector<double> rank_cond, slot_cond;
};

// The model's expected share of all pairs at each rank and node for the classes' shares of the
// tokens they were computed for.
struct ModelMasses {
  std::vector<double> shares;  // [class] share of the tokens
  std::vector<double> rank_mass, node_mass;
};

class RoutingSetup {
 public:
  RoutingSetup(const RoutingModel& model, int experts);
  // Loads the layer's expert popularity at the step and returns it (probs() until the next load).
  std::span<const double> load(int moe_layer, std::int64_t step);
  std::span<const double> probs() const { return probs_; }
  // The loaded popularity's slot (w) and rank (q) weights per class of the targets.
  void class_weights(const RoutingTargets& t, std::vector<double>& w, std::vector<double>& q) const;
  // The layer's setup for the loaded popularity and these targets, rebuilt when either changed.
  const LayerRoutingSetup& layer(int moe_layer, const RoutingTargets& t);
  // The model's masses of the layer's setup (after layer()) for the classes' token shares, kept
  // while they are the same.
  const ModelMasses& masses(int moe_layer, std::span<const double> class_share);
  // How many layer setups were built so far (what was not rebuilt was kept).
  std::int64_t builds() const { return builds_; }

 private:
  struct Kept {
    bool valid = false;
    std::vector<double> probs;  // what it was built from
    RoutingTargets targets;
    LayerRoutingSetup setup;
    ModelMasses masses;
  };

  void build(const RoutingTargets& t, LayerRoutingSetup& s);
  void virtual_weights(const RoutingTargets& t, LayerRoutingSetup& s);
  static void pattern_groups(const RoutingTargets& t, std::size_t V, std::size_t N, LayerRoutingSetup& s);

  const RoutingModel& model_;
  int experts_;
  std::span<const double> probs_;  // the layer's popularity (load): own_probs_ or cached_
  std::vector<double> own_probs_;
  std::vector<std::vector<double>> cached_;  // per-layer probs of step-invariant models
  std::vector<Kept> kept_;                   // [MoE layer]
  std::vector<double> group_mass_;           // scratch of virtual_weights
  std::int64_t builds_ = 0;
};

}  // namespace moesim::workloads
