// RoutingSampler: one MoE layer's routing for a batch, drawn as counts (docs/design.md §4): token-expert
// pairs from each source rank to each destination rank, and to each expert slot.
//
// Targets describe the placement (routing_targets.h). Every source sends top_k pairs per token.
//
// The sampler is the draw: the per-call randomness and its scratch. What a layer's draws derive
// from its expert popularity and its targets alone (the popularity, the margins' per-layer
// setup) is kept by its RoutingSetup (routing_setup.h), rebuilt exactly when either changes, so
// every draw is what a fresh sampler would draw from the same random state.
//
// Paths (all statistically exact for the model they sample, up to the 2^-32 table resolution):
//  - fast (popularity models): each source row is Multinomial(tokens·k, rank masses), drawn by
//    Poissonisation — independent Poisson(n·q_d) cells from tables shared by all rows of the same
//    size and class, then the row total is corrected to n by adding categorical draws (alias
//    table) or removing uniformly chosen pairs (Fenwick tree); n i.i.d. categorical draws either
//    way. Each destination's column (per class) is then split over its slots by conditional
//    binomials (BTRS). Cost ~ sources × ranks table look-ups per layer.
//  - group-limited: per source, token-group selections ~ Multinomial(tokens·M, group masses);
//    each selection carries k/M pairs (the remainder of k mod M follows the selections), split
//    over the group's slots. Marginal expert shares equal the base model's; the per-group count
//    variance grows by k/M versus independent pairs (a token's pairs land together). What counts
//    cannot show is which tokens share a group; per-token structure would need a trace.
//  - trace: the recorded tokens are dealt to the sources in order (wrapping around), each pair
//    to a replica chosen by the source's class shares. Token-level, exact replay.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "workloads/binomial_batch.h"
#include "workloads/multinomial_rows.h"
#include "workloads/routing_margins.h"
#include "workloads/routing_model.h"
#include "workloads/routing_setup.h"
#include "workloads/routing_targets.h"

namespace moesim::workloads {

struct LayerCounts {
  int ranks = 0;
  std::vector<std::int64_t> pairs;          // [src * ranks + dst] token-expert pairs
  std::vector<std::int64_t> slot_counts;    // [slot] pairs received
  std::vector<std::int64_t> expert_counts;  // [expert] pairs received over all replicas
  std::int64_t pair(int src, int dst) const { return pairs[static_cast<std::size_t>(src) * ranks + dst]; }
  std::int64_t rank_load(int dst) const;  // pairs received by rank dst
};

// The margins of a full draw (self pairs, per-node sends, intra and remote receipts); the masses
// are the draw's realised shares.
void aggregate_margins(const LayerCounts& counts, const RoutingTargets& targets, RoutingMargins& out);

class RoutingSampler {
 public:
  RoutingSampler(const RoutingModel& model, int experts, int top_k);
  // tokens[s]: tokens routed by source rank s this step (size = targets.ranks).
  void draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, const RoutingTargets& targets,
            Rng& rng, LayerCounts& out);
  // The same routing as margins (routing_margins.h), without the source x destination matrix
  // on the popularity path; `per_source_nodes` also draws each source's pairs per node. The
  // masses are the model's.
  void draw_margins(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                    const RoutingTargets& targets, Rng& rng, RoutingMargins& out, bool per_source_nodes = false);

 private:
  void virtual_rows(std::span<const std::int64_t> tokens, const RoutingTargets& t, Rng& rng);
  void model_masses(int moe_layer, const RoutingTargets& t, std::span<const std::int64_t> tokens, RoutingMargins& out);
  void check(const RoutingTargets& t) const;
  void reset(const RoutingTargets& t, LayerCounts& out) const;
  void fast_rows(std::span<const std::int64_t> tokens, const RoutingTargets& t, Rng& rng, LayerCounts& out);
  void split_columns(const RoutingTargets& t, Rng& rng, LayerCounts& out);
  void grouped(std::span<const std::int64_t> tokens, const RoutingTargets& t, GroupLimit g, Rng& rng, LayerCounts& out);
  void replay(std::span<const std::int64_t> tokens, const RoutingTargets& t, TraceTokens trace, Rng& rng,
              LayerCounts& out);
  void add_pairs(int src, int slot, std::int64_t n, const RoutingTargets& t, LayerCounts& out) const;

  const RoutingModel& model_;
  int experts_, top_k_;
  RoutingSetup setup_;  // the layers' popularity and kept setups
  // Scratch reused across draws.
  std::vector<double> w_;  // [class * slots + slot] pair probability of a slot
  std::vector<double> q_;  // [class * ranks + rank] pair probability of a rank
  MultinomialRows rows_;
  std::vector<std::int64_t> totals_, col_, tmp_;
  std::vector<double> sub_;
  std::vector<std::size_t> order_;
  // Margins scratch.
  LayerCounts full_;
  std::vector<double> inside_weight_, node_w_, group_mass_, class_share_;
  std::vector<std::size_t> row_src_;
  std::vector<int> row_class_, zero_class_;
  std::vector<std::int64_t> row_pairs_, row_own_, row_nodes_, selections_;
  std::vector<std::int64_t> rows_tokens_;  // the tokens the popularity rows were made from (virtual_rows)
  std::vector<int> rows_classes_;          // ... and the source classes
  std::vector<std::int64_t> rest_, remote_, inside_, block_rem_;
  std::vector<std::int64_t> group_total_;
  BinomialBatch batch_;  // the margins' independent draws, together
  std::vector<std::int64_t> draw_n_, row_self_, split_n_, split_out_, split_row_;
  std::vector<double> draw_p_, split_cond_;
};

}  // namespace moesim::workloads
