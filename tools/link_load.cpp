#include "tools/link_load.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace moesim::tools {

LinkLoadSummary summarize_links(const topology::Cluster& cluster, std::span<const double> link_bytes, double seconds,
                                std::size_t top) {
  using topology::LinkClass;
  constexpr std::array kClasses{LinkClass::kScaleUp, LinkClass::kHost, LinkClass::kScaleOut, LinkClass::kFabric};
  LinkLoadSummary s;
  std::vector<LinkLoad> used;
  const int n = std::min(cluster.num_links(), static_cast<int>(link_bytes.size()));
  for (int l = 0; l < n; ++l) {
    const double bytes = link_bytes[static_cast<std::size_t>(l)];
    if (bytes <= 0) continue;
    const double capacity = cluster.link_capacity(l) * seconds;
    used.push_back({l, cluster.link_name(l), std::string(topology::to_string(cluster.link_props(l).cls)), bytes,
                    capacity > 0 ? bytes / capacity : 0.0});
  }
  for (const LinkClass c : kClasses) {
    LinkClassLoad k;
    k.link_class = std::string(topology::to_string(c));
    double sum = 0;
    for (const auto& u : used) {
      if (u.link_class != k.link_class) continue;
      ++k.links;
      k.bytes += u.bytes;
      sum += u.utilisation;
      k.max_utilisation = std::max(k.max_utilisation, u.utilisation);
    }
    if (k.links == 0) continue;
    k.mean_utilisation = sum / k.links;
    s.classes.push_back(k);
  }
  std::stable_sort(used.begin(), used.end(),
                   [](const LinkLoad& a, const LinkLoad& b) { return a.utilisation > b.utilisation; });
  if (used.size() > top) used.resize(top);
  s.busiest = std::move(used);
  return s;
}

std::vector<double> expert_imbalance(const sim::LoadStats& load) {
  std::vector<double> out;
  const auto e = static_cast<std::size_t>(load.experts);
  for (int l = 0; l < load.moe_layers; ++l) {
    const auto first = load.expert_pairs.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(l) * e);
    const auto last = first + static_cast<std::ptrdiff_t>(e);
    const double total = static_cast<double>(std::accumulate(first, last, std::int64_t{0}));
    const double peak = e > 0 ? static_cast<double>(*std::max_element(first, last)) : 0.0;
    out.push_back(total > 0 ? peak / (total / static_cast<double>(e)) : 0.0);
  }
  return out;
}

double rank_imbalance(const sim::LoadStats& load) {
  const auto& series = load.rank_pairs;
  std::vector<double> per_rank(static_cast<std::size_t>(series.ranks()), 0.0);
  for (int b = 0; b < series.buckets(); ++b)
    for (int r = 0; r < series.ranks(); ++r)
      per_rank[static_cast<std::size_t>(r)] += static_cast<double>(series.at(b, r));
  const double total = std::accumulate(per_rank.begin(), per_rank.end(), 0.0);
  if (total <= 0 || per_rank.empty()) return 0;
  return *std::max_element(per_rank.begin(), per_rank.end()) / (total / static_cast<double>(per_rank.size()));
}

}  // namespace moesim::tools
