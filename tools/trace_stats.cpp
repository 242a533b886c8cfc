#include "tools/trace_stats.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "models/routing_trace.h"
#include "models/routing_trace_stats.h"

namespace moesim::tools {

int print_trace_stats(const std::string& path, int loads) {
  const models::RoutingTrace trace = models::read_routing_trace(path);
  const auto& h = trace.header;
  const models::TraceStats st = models::trace_stats(trace);
  std::printf("%s: model '%s', %d MoE layers x %d experts, top-%d, %s\n", path.c_str(), h.model.c_str(), h.moe_layers,
              h.experts, h.top_k, h.has_weights ? "router weights recorded" : "no router weights");
  std::printf("%zu steps, %lld tokens (%.1f per step)", trace.steps.size(), static_cast<long long>(st.tokens),
              trace.steps.empty() ? 0.0 : static_cast<double>(st.tokens) / static_cast<double>(trace.steps.size()));
  if (h.has_weights) std::printf("; mean router weight per token and layer %.4f", st.mean_weight_sum);
  std::printf("\n\n%9s %9s %7s %15s %10s %9s %8s %9s %6s %8s %11s %9s\n", "moe_layer", "imbalance", "cv", "hottest",
              "pairs", "top_pair", "count", "expected", "lift", "pair_tv", "hot_overlap", "load_corr");
  double sum_imb = 0, sum_cv = 0, sum_tv = 0, sum_ov = 0, sum_corr = 0, worst = 0;
  int worst_layer = 0;
  for (int l = 0; l < h.moe_layers; ++l) {
    const auto& s = st.layers[static_cast<std::size_t>(l)];
    char pair[32] = "-";
    if (s.top_pair_a >= 0) std::snprintf(pair, sizeof pair, "%d+%d", s.top_pair_a, s.top_pair_b);
    // Undefined figures (no co-selected pairs with top-1, one step only) print as "-".
    const auto num = [](bool defined, double v, int decimals) {
      char b[32] = "-";
      if (defined) std::snprintf(b, sizeof b, "%.*f", decimals, v);
      return std::string(b);
    };
    std::printf("%9d %9.3f %7.3f %6d (%5.1f%%) %10lld %9s %8lld %9s %6s %8s %11s %9s\n", l, s.imbalance, s.cv,
                s.hottest, 100 * s.hottest_share, static_cast<long long>(s.pairs), pair,
                static_cast<long long>(s.top_pair_count), num(s.pairs > 0, s.top_pair_expected, 1).c_str(),
                num(s.top_pair_expected > 0, static_cast<double>(s.top_pair_count) / s.top_pair_expected, 2).c_str(),
                num(s.pairs > 0, s.pair_tv, 3).c_str(), num(s.step_pairs > 0, s.hot_overlap, 3).c_str(),
                num(s.correlated_pairs > 0, s.load_correlation, 3).c_str());
    sum_imb += s.imbalance;
    sum_cv += s.cv;
    sum_tv += s.pair_tv;
    sum_ov += s.hot_overlap;
    sum_corr += s.load_correlation;
    if (s.imbalance > worst) {
      worst = s.imbalance;
      worst_layer = l;
    }
  }
  const double n = h.moe_layers;
  std::printf(
      "\nmean imbalance %.3f (worst MoE layer %d: %.3f), mean cv %.3f, mean pair_tv %.3f, mean hot overlap %.3f, "
      "mean load correlation %.3f\n",
      sum_imb / n, worst_layer, worst, sum_cv / n, sum_tv / n, sum_ov / n, sum_corr / n);
  std::printf(
      "imbalance = (max - mean) / mean of the pairs each expert received; pairs = co-selected expert pairs;\n"
      "lift = count / expected under independent choice; hot_overlap = Jaccard of consecutive steps' above-mean "
      "experts;\nload_corr = Pearson correlation of consecutive steps' expert loads\n");

  std::printf("\nexpert load (pairs received; hottest first%s)\n", loads > 0 ? ", top experts" : "");
  for (int l = 0; l < h.moe_layers; ++l) {
    const auto& load = st.layers[static_cast<std::size_t>(l)].load;
    std::vector<int> order(load.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return load[static_cast<std::size_t>(a)] > load[static_cast<std::size_t>(b)];
    });
    const std::size_t shown = loads > 0 ? std::min(order.size(), static_cast<std::size_t>(loads)) : order.size();
    std::printf("  %3d:", l);
    for (std::size_t i = 0; i < shown; ++i) {
      if (i > 0 && i % 12 == 0) std::printf("\n      ");
      std::printf(" %d:%lld", order[i], static_cast<long long>(load[static_cast<std::size_t>(order[i])]));
    }
    std::printf("\n");
  }
  return 0;
}

}  // namespace moesim::tools
