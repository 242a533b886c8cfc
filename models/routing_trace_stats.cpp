#include "models/routing_trace_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace moesim::models {
namespace {

void load_stats(LayerTraceStats& s) {
  const double n = static_cast<double>(s.load.size());
  const double total = static_cast<double>(std::accumulate(s.load.begin(), s.load.end(), std::int64_t{0}));
  if (total == 0) return;
  const double mean = total / n;
  double var = 0;
  for (auto l : s.load) var += (static_cast<double>(l) - mean) * (static_cast<double>(l) - mean) / n;
  const auto hot = std::max_element(s.load.begin(), s.load.end());
  s.hottest = static_cast<int>(hot - s.load.begin());
  s.hottest_share = static_cast<double>(*hot) / total;
  s.imbalance = (static_cast<double>(*hot) - mean) / mean;
  s.cv = std::sqrt(var) / mean;
}

void pair_stats(LayerTraceStats& s, const std::vector<std::int64_t>& pairs, int experts) {
  s.pairs = std::accumulate(pairs.begin(), pairs.end(), std::int64_t{0});
  if (s.pairs == 0) return;
  const double total = static_cast<double>(std::accumulate(s.load.begin(), s.load.end(), std::int64_t{0}));
  std::vector<double> p(s.load.size());
  double sum_sq = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum_sq += (p[i] = static_cast<double>(s.load[i]) / total) * p[i];
  const double norm = (1 - sum_sq) / 2;  // Σ_{i<j} p_i p_j
  double tv = 0;
  std::int64_t best = -1;
  for (int i = 0; i < experts; ++i)
    for (int j = i + 1; j < experts; ++j) {
      const auto o = pairs[static_cast<std::size_t>(i * experts + j)];
      const double e = norm > 0 ? static_cast<double>(s.pairs) * p[static_cast<std::size_t>(i)] *
                                      p[static_cast<std::size_t>(j)] / norm
                                : 0;
      tv += std::abs(static_cast<double>(o) - e);
      if (o > best) {
        best = o;
        s.top_pair_a = i;
        s.top_pair_b = j;
        s.top_pair_count = o;
        s.top_pair_expected = e;
      }
    }
  s.pair_tv = tv / 2 / static_cast<double>(s.pairs);
}

double pearson(const std::vector<double>& a, const std::vector<double>& b, bool& defined) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  defined = saa > 0 && sbb > 0;
  return defined ? sab / std::sqrt(saa * sbb) : 0;
}

double jaccard(const std::vector<double>& a, const std::vector<double>& b) {
  const auto hot = [](const std::vector<double>& v, std::size_t i) {
    return v[i] > std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  int both = 0, either = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool x = hot(a, i), y = hot(b, i);
    both += x && y;
    either += x || y;
  }
  return either == 0 ? 1.0 : static_cast<double>(both) / either;
}

}  // namespace

TraceStats trace_stats(const RoutingTrace& t) {
  const int layers = t.header.moe_layers, experts = t.header.experts, k = t.header.top_k;
  TraceStats out;
  out.layers.resize(static_cast<std::size_t>(layers));
  double weight_sum = 0;
  for (const auto& step : t.steps) out.tokens += step.tokens;
  for (int l = 0; l < layers; ++l) {
    LayerTraceStats& s = out.layers[static_cast<std::size_t>(l)];
    s.load.assign(static_cast<std::size_t>(experts), 0);
    std::vector<std::int64_t> pairs(static_cast<std::size_t>(experts) * static_cast<std::size_t>(experts), 0);
    std::vector<double> prev, cur(static_cast<std::size_t>(experts));
    double overlap = 0, corr = 0;
    for (std::size_t st = 0; st < t.steps.size(); ++st) {
      const auto ids = t.layer_ids(st, l);
      if (ids.empty()) continue;
      std::fill(cur.begin(), cur.end(), 0.0);
      for (std::size_t tok = 0; tok * static_cast<std::size_t>(k) < ids.size(); ++tok) {
        const auto* choice = &ids[tok * static_cast<std::size_t>(k)];
        for (int a = 0; a < k; ++a) {
          ++s.load[choice[a]];
          cur[choice[a]] += 1;
          for (int b = a + 1; b < k; ++b)
            ++pairs[static_cast<std::size_t>(std::min(choice[a], choice[b])) * static_cast<std::size_t>(experts) +
                    std::max(choice[a], choice[b])];
        }
      }
      for (float w : t.layer_weights(st, l)) weight_sum += w;
      if (!prev.empty()) {
        overlap += jaccard(prev, cur);
        ++s.step_pairs;
        bool defined = false;
        const double r = pearson(prev, cur, defined);
        if (defined) {
          corr += r;
          ++s.correlated_pairs;
        }
      }
      prev = cur;
    }
    s.hot_overlap = s.step_pairs > 0 ? overlap / s.step_pairs : 0;
    s.load_correlation = s.correlated_pairs > 0 ? corr / s.correlated_pairs : 0;
    load_stats(s);
    pair_stats(s, pairs, experts);
  }
  if (t.header.has_weights && out.tokens > 0)
    out.mean_weight_sum = weight_sum / static_cast<double>(out.tokens * layers);
  return out;
}

}  // namespace moesim::models
