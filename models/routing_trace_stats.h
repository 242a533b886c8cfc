// Statistics of a routing trace (models/routing_trace.h), per MoE layer:
//
// - load: token-expert pairs each expert received over the whole trace; imbalance
//   (max − mean) / mean and coefficient of variation std / mean of the loads (population std);
// - co-selection: how often two experts are chosen by the same token. Under independence the
//   T·k(k−1)/2 pairs of the trace's T tokens would fall on experts i < j in proportion to
//   p_i·p_j (p = load shares); the most frequent pair is reported with that expected count
//   (lift = observed / expected), and
//   pair_tv = ½ Σ|observed − expected| / Σ observed (0: independent, 1: disjoint). A finite trace
//   shows some TV from sampling alone. Undefined (reported as 0 pairs) for top-1;
// - step-to-step stability over consecutive non-empty steps: the Jaccard overlap of their hot
//   sets (experts above that step's mean load) and the Pearson correlation of their per-expert
//   loads (pairs of steps where either load is constant are skipped), averaged.
#pragma once

#include <cstdint>
#include <vector>

#include "models/routing_trace.h"

namespace moesim::models {

struct LayerTraceStats {
  std::vector<std::int64_t> load;  // per expert
  double imbalance = 0;
  double cv = 0;
  int hottest = 0;
  double hottest_share = 0;  // of the layer's pairs
  // Co-selection: the most often co-selected pair (ties: lowest ids), its expected count under
  // independence, and the total-variation distance from independence.
  std::int64_t pairs = 0;
  int top_pair_a = -1, top_pair_b = -1;
  std::int64_t top_pair_count = 0;
  double top_pair_expected = 0;
  double pair_tv = 0;
  // Stability.
  int step_pairs = 0;        // consecutive step pairs averaged over for the overlap
  double hot_overlap = 0;    // mean Jaccard
  int correlated_pairs = 0;  // step pairs with a defined correlation
  double load_correlation = 0;
};

struct TraceStats {
  std::int64_t tokens = 0;  // Σ over steps
  std::vector<LayerTraceStats> layers;
  double mean_weight_sum = 0;  // mean Σ_k router weight per token and layer (0 without weights)
};

TraceStats trace_stats(const RoutingTrace& trace);

}  // namespace moesim::models
