// LoadStats: where a pool's MoE load went, for reports (docs/design.md §1 "per expert: load"; §4
// "per-link load, for reports"), in memory bounded by the model and the fabric, not by the run:
//
//  - expert load: token-expert pairs each expert of each MoE layer received, summed over steps,
//    micro-batches and instances (logical experts: replicas summed);
//  - rank load over time: pairs received by each rank of the pool (instance-major: instance i's
//    rank r is i * ranks + r), summed over MoE layers, in time buckets by step start. The series
//    keeps at most `max_buckets` buckets: when a step starts past the last one, the bucket width
//    doubles and neighbouring buckets merge, so a run of any length keeps the whole history at a
//    resolution of at least run length / max_buckets; the steps each instance started are kept
//    in the same buckets, to read the load per step;
//  - link load: bytes each fabric link (topology::Cluster link id) carried in dispatch and
//    combine all-to-alls, summed over the run.
//
// The step model feeds it once per MoE layer draw and all-to-all (never per token).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topology/cluster.h"
#include "topology/comm.h"

namespace moesim::sim {

class RankLoadSeries {
 public:
  RankLoadSeries() = default;
  RankLoadSeries(int ranks, int max_buckets, std::int64_t initial_bucket_ns);

  // Adds `per_rank` (one value per rank) to the bucket holding `time_ns` (>= 0).
  void add(std::int64_t time_ns, std::span<const std::int64_t> per_rank);
  // Adds one rank's value.
  void add(std::int64_t time_ns, int rank, std::int64_t value);
  // The values of the bucket holding `time_ns`, one per rank, to add to in place (one bucket
  // look-up for many ranks); valid until the next call.
  std::span<std::int64_t> row(std::int64_t time_ns);
  // Adds `other`'s values (a series with as many buckets, and at most as many ranks) to ranks
  // first_rank.. of this one: the same series as had each value been added here, whatever the
  // order.
  void add(const RankLoadSeries& other, int first_rank);

  int ranks() const { return ranks_; }
  std::int64_t bucket_ns() const { return bucket_ns_; }
  int buckets() const { return used_; }  // buckets up to the last one that was touched
  std::int64_t at(int bucket, int rank) const {
    return values_[static_cast<std::size_t>(bucket) * static_cast<std::size_t>(ranks_) +
                   static_cast<std::size_t>(rank)];
  }

 private:
  int bucket_of(std::int64_t time_ns);  // widens the buckets as needed
  void widen();                         // doubles the bucket width, merging bucket pairs
  int ranks_ = 0, max_buckets_ = 0, used_ = 0;
  std::int64_t bucket_ns_ = 1;
  std::vector<std::int64_t> values_;  // [bucket * ranks + rank]
};

struct LoadStats {
  static constexpr int kMaxBuckets = 120;
  static constexpr std::int64_t kInitialBucketNs = 1'000'000;  // 1 ms, doubled as the run grows

  LoadStats() = default;
  // `ranks_per_instance` EP ranks per instance, `links` the cluster's link count.
  LoadStats(int moe_layers, int experts, int instances, int ranks_per_instance, int links);

  // A step of instance `instance` started at `step_start_ns` (counted per time bucket, so the
  // rank load can be read per step).
  void begin_step(int instance, std::int64_t step_start_ns);
  // Adds everything `other` holds, the statistics of one instance (a LoadStats of one instance
  // of this one's shape), as instance `instance`: each instance keeps statistics of its own,
  // summed into its pool's at the end (sim/simulation.cpp).
  void add(const LoadStats& other, int instance);
  // One MoE layer's draw on instance `instance`, in a step that started at `step_start_ns`:
  // pairs per expert, and the pairs each rank of the instance received (its slots' counts summed).
  void add_routing(int instance, std::int64_t step_start_ns, int moe_layer, std::span<const std::int64_t> expert_counts,
                   std::span<const std::int64_t> pairs_per_rank) {
    add_expert_counts(moe_layer, expert_counts);
    add_rank_pairs(instance, step_start_ns, pairs_per_rank);
  }
  // Its two halves: the pairs per expert (a total over the run, so they may be booked late and
  // in any order), and the pairs per rank (booked in the step's time bucket).
  void add_expert_counts(int moe_layer, std::span<const std::int64_t> expert_counts);
  void add_rank_pairs(int instance, std::int64_t step_start_ns, std::span<const std::int64_t> pairs_per_rank);
  // Bytes per link of one all-to-all (topology::CommResult::link_bytes); `scale` multiplies them.
  // `listed` (optional): the only ids that may be non-zero (CommResult::loaded_links).
  void add_links(std::span<const double> link_bytes, double scale = 1.0, const std::vector<int>* listed = nullptr);
  // The same, each link's bytes booked on the link in the opposite direction (`reverse[l]`):
  // a combine costed as the dispatch reversed.
  void add_links_reversed(std::span<const double> link_bytes, std::span<const int> reverse, double scale,
                          const std::vector<int>* listed = nullptr);
  // The same from a collective's result, visiting only its loaded links when it lists them.
  void add_links(const topology::CommResult& r, double scale = 1.0) {
    add_links(r.link_bytes, scale, r.links_listed ? &r.loaded_links : nullptr);
  }
  void add_links_reversed(const topology::CommResult& r, std::span<const int> reverse, double scale) {
    add_links_reversed(r.link_bytes, reverse, scale, r.links_listed ? &r.loaded_links : nullptr);
  }

  int moe_layers = 0, experts = 0, ranks_per_instance = 0;
  std::vector<std::int64_t> expert_pairs;  // [moe_layer * experts + expert]
  RankLoadSeries rank_pairs;               // pairs received per pool rank per time bucket
  RankLoadSeries step_starts;              // steps started per instance per time bucket (same buckets)
  std::vector<double> link_bytes;          // [link id] dispatch + combine bytes
};

// For each link id, the id of the link in the opposite direction (same end points reversed),
// or the link itself when the fabric has none.
std::vector<int> reverse_links(const topology::Cluster& cluster);

}  // namespace moesim::sim
