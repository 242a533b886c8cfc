#include "sim/load_stats.h"

#include <algorithm>

#include "sim/check.h"
#include "topology/fabric_graph.h"

namespace moesim::sim {

RankLoadSeries::RankLoadSeries(int ranks, int max_buckets, std::int64_t initial_bucket_ns)
    : ranks_(ranks),
      max_buckets_(max_buckets),
      bucket_ns_(initial_bucket_ns),
      values_(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(max_buckets), 0) {
  MOESIM_CHECK(ranks >= 0 && max_buckets >= 2 && initial_bucket_ns > 0, "bad rank-load series shape");
}

void RankLoadSeries::widen() {
  const auto r = static_cast<std::size_t>(ranks_);
  // Merge bucket pairs (2b, 2b+1) into b; the upper half becomes empty.
  for (int b = 0; b < max_buckets_ / 2; ++b)
    for (std::size_t k = 0; k < r; ++k)
      values_[static_cast<std::size_t>(b) * r + k] =
          values_[static_cast<std::size_t>(2 * b) * r + k] + values_[static_cast<std::size_t>(2 * b + 1) * r + k];
  if (max_buckets_ % 2 == 1) {  // an odd last bucket lands alone in the middle
    const auto last = static_cast<std::size_t>(max_buckets_ - 1), mid = static_cast<std::size_t>(max_buckets_ / 2);
    for (std::size_t k = 0; k < r; ++k) values_[mid * r + k] = values_[last * r + k];
  }
  const std::size_t keep = static_cast<std::size_t>((max_buckets_ + 1) / 2) * r;
  std::fill(values_.begin() + static_cast<std::ptrdiff_t>(keep), values_.end(), 0);
  bucket_ns_ *= 2;
  used_ = (used_ + 1) / 2;
}

void RankLoadSeries::add(const RankLoadSeries& o, int first_rank) {
  MOESIM_CHECK(first_rank >= 0 && first_rank + o.ranks_ <= ranks_ && o.max_buckets_ == max_buckets_ &&
                   (o.bucket_ns_ % bucket_ns_ == 0 || bucket_ns_ % o.bucket_ns_ == 0),
               "rank-load series of different shapes added");
  while (bucket_ns_ < o.bucket_ns_) widen();
  // Each of `o`'s buckets lies within one of this one's (widths are the initial one doubled).
  const auto r = static_cast<std::size_t>(ranks_), ro = static_cast<std::size_t>(o.ranks_);
  for (int b = 0; b < o.used_; ++b) {
    const auto mine = static_cast<int>(static_cast<std::int64_t>(b) * o.bucket_ns_ / bucket_ns_);
    used_ = std::max(used_, mine + 1);
    std::int64_t* row = values_.data() + static_cast<std::size_t>(mine) * r + static_cast<std::size_t>(first_rank);
    for (std::size_t k = 0; k < ro; ++k) row[k] += o.values_[static_cast<std::size_t>(b) * ro + k];
  }
}

int RankLoadSeries::bucket_of(std::int64_t time_ns) {
  MOESIM_CHECK(time_ns >= 0, "rank load sampled before time zero");
  while (time_ns / bucket_ns_ >= max_buckets_) widen();
  const int b = static_cast<int>(time_ns / bucket_ns_);
  used_ = std::max(used_, b + 1);
  return b;
}

void RankLoadSeries::add(std::int64_t time_ns, std::span<const std::int64_t> per_rank) {
  MOESIM_CHECK(static_cast<int>(per_rank.size()) == ranks_, "rank load of the wrong rank count");
  const auto bucket = row(time_ns);
  for (std::size_t k = 0; k < per_rank.size(); ++k) bucket[k] += per_rank[k];
}

void RankLoadSeries::add(std::int64_t time_ns, int rank, std::int64_t value) {
  MOESIM_CHECK(rank >= 0 && rank < ranks_, "rank load of a rank out of range");
  values_[static_cast<std::size_t>(bucket_of(time_ns)) * static_cast<std::size_t>(ranks_) +
          static_cast<std::size_t>(rank)] += value;
}

std::span<std::int64_t> RankLoadSeries::row(std::int64_t time_ns) {
  const auto r = static_cast<std::size_t>(ranks_);
  return std::span<std::int64_t>(values_).subspan(static_cast<std::size_t>(bucket_of(time_ns)) * r, r);
}

LoadStats::LoadStats(int moe_layers_, int experts_, int instances, int ranks_per_instance_, int links)
    : moe_layers(moe_layers_),
      experts(experts_),
      ranks_per_instance(ranks_per_instance_),
      expert_pairs(static_cast<std::size_t>(moe_layers_) * static_cast<std::size_t>(experts_), 0),
      rank_pairs(instances * ranks_per_instance_, kMaxBuckets, kInitialBucketNs),
      step_starts(instances, kMaxBuckets, kInitialBucketNs),
      link_bytes(static_cast<std::size_t>(links), 0.0) {}

void LoadStats::begin_step(int instance, std::int64_t step_start_ns) {
  step_starts.add(step_start_ns, instance, 1);
  if (rank_pairs.ranks() > 0) rank_pairs.add(step_start_ns, 0, 0);  // keeps both series on the same buckets
}

void LoadStats::add(const LoadStats& o, int instance) {
  MOESIM_CHECK(o.moe_layers == moe_layers && o.experts == experts && o.ranks_per_instance == ranks_per_instance &&
                   o.step_starts.ranks() == 1 && o.link_bytes.size() == link_bytes.size() && instance >= 0 &&
                   instance < step_starts.ranks(),
               "load statistics of different shapes added");
  for (std::size_t i = 0; i < expert_pairs.size(); ++i) expert_pairs[i] += o.expert_pairs[i];
  rank_pairs.add(o.rank_pairs, instance * ranks_per_instance);
  step_starts.add(o.step_starts, instance);
  for (std::size_t l = 0; l < link_bytes.size(); ++l) link_bytes[l] += o.link_bytes[l];
}

void LoadStats::add_expert_counts(int moe_layer, std::span<const std::int64_t> expert_counts) {
  MOESIM_CHECK(moe_layer >= 0 && moe_layer < moe_layers && static_cast<int>(expert_counts.size()) == experts,
               "routing counts do not match the load statistics' shape");
  auto* row = expert_pairs.data() + static_cast<std::size_t>(moe_layer) * static_cast<std::size_t>(experts);
  for (std::size_t e = 0; e < expert_counts.size(); ++e) row[e] += expert_counts[e];
}

void LoadStats::add_rank_pairs(int instance, std::int64_t step_start_ns, std::span<const std::int64_t> pairs_per_rank) {
  MOESIM_CHECK(pairs_per_rank.size() == static_cast<std::size_t>(ranks_per_instance),
               "routing counts do not match the load statistics' shape");
  MOESIM_CHECK(instance >= 0 && (instance + 1) * ranks_per_instance <= rank_pairs.ranks(),
               "routing counts of an instance out of range");
  // One bucket look-up for the instance's ranks.
  const auto received = rank_pairs.row(step_start_ns)
                            .subspan(static_cast<std::size_t>(instance) * static_cast<std::size_t>(ranks_per_instance),
                                     static_cast<std::size_t>(ranks_per_instance));
  for (std::size_t r = 0; r < received.size(); ++r) received[r] += pairs_per_rank[r];
}

void LoadStats::add_links(std::span<const double> bytes, double scale, const std::vector<int>* listed) {
  const std::size_t n = std::min(bytes.size(), link_bytes.size());
  if (listed) {
    for (const int id : *listed)
      if (static_cast<std::size_t>(id) < n)
        link_bytes[static_cast<std::size_t>(id)] += bytes[static_cast<std::size_t>(id)] * scale;
    return;
  }
  for (std::size_t l = 0; l < n; ++l) link_bytes[l] += bytes[l] * scale;
}

void LoadStats::add_links_reversed(std::span<const double> bytes, std::span<const int> reverse, double scale,
                                   const std::vector<int>* listed) {
  const std::size_t n = std::min(bytes.size(), link_bytes.size());
  auto book = [&](std::size_t l) {
    if (bytes[l] == 0) return;
    const int to = l < reverse.size() && reverse[l] >= 0 ? reverse[l] : static_cast<int>(l);
    link_bytes[static_cast<std::size_t>(to)] += bytes[l] * scale;
  };
  if (listed) {
    for (const int id : *listed)
      if (static_cast<std::size_t>(id) < n) book(static_cast<std::size_t>(id));
    return;
  }
  for (std::size_t l = 0; l < n; ++l) book(l);
}

std::vector<int> reverse_links(const topology::Cluster& cluster) {
  const auto& g = topology::graph(cluster);
  std::vector<int> out(static_cast<std::size_t>(cluster.num_links()));
  for (int l = 0; l < cluster.num_links(); ++l) {
    const auto e = topology::link_edge(cluster, l);
    const auto [back, found] = boost::edge(boost::target(e, g), boost::source(e, g), g);
    out[static_cast<std::size_t>(l)] = found ? g[back].id : l;
  }
  return out;
}

}  // namespace moesim::sim
