#include "sim/layer_routing.h"

#include <algorithm>
#include <cmath>

namespace moesim::sim {
namespace {

// Expected distinct tokens among `pairs` pairs that a source sends to a destination receiving a
// share q of its pairs, for top-k routing: pairs · (1 - (1 - q)^k) / (k · q).
double distinct_tokens(double pairs, double q, int k) {
  if (pairs <= 0 || q <= 0) return 0;
  if (q >= 1) return pairs / k;
  double miss = 1.0;  // (1 - q)^k by repeated multiplication: k is a small integer (top-k)
  for (int i = 0; i < k; ++i) miss *= 1.0 - q;
  return pairs * (1.0 - miss) / (k * q);
}

}  // namespace

LayerRouting::LayerRouting(const models::ModelSpec& model, const InstanceLayout& layout,
                           const workloads::RoutingModel& routing, const topology::Cluster& cluster)
    : model_(model),
      layout_(layout),
      config_(layout.config().placement),
      sampler_(routing, model.routed_experts, model.top_k) {
  shape_.experts = model.routed_experts;
  shape_.ep = layout.ep();
  shape_.redundant = config_.redundant;
  shape_.devices_per_node = std::max(1, std::min(cluster.config().devices_per_node, layout.ep()));
  shape_.expert_groups = std::max(1, model.expert_groups);
  nodes_ = cluster.num_nodes();
  for (int device : layout.rank_devices()) rank_node_.push_back(cluster.node_of(device));
  const int layers = model.num_moe_layers();
  std::vector<std::vector<double>> expected(static_cast<std::size_t>(layers),
                                            std::vector<double>(static_cast<std::size_t>(model.routed_experts)));
  for (int l = 0; l < layers; ++l) routing.expert_distribution(l, 0, expected[static_cast<std::size_t>(l)]);
  placement_ = place_experts(config_, shape_, expected);
  for (const auto& p : placement_) targets_.push_back(p.routing_targets(config_.replica_split));
  observed_.assign(static_cast<std::size_t>(layers), std::vector<double>(static_cast<std::size_t>(model.routed_experts)));
}

std::span<const std::int64_t> LayerRouting::local_counts(int rank) const {
  const auto per = static_cast<std::size_t>(shape_.slots_per_rank());
  return std::span<const std::int64_t>(counts_.slot_counts).subspan(static_cast<std::size_t>(rank) * per, per);
}

void LayerRouting::draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, workloads::Rng& rng) {
  const auto l = static_cast<std::size_t>(moe_layer);
  sampler_.draw(moe_layer, step, tokens, targets_[l], rng, counts_);
  total_pairs_ = 0;
  for (auto t : tokens) total_pairs_ += t * model_.top_k;
  total_received_ = 0;
  for (auto c : counts_.slot_counts) total_received_ += c;
  if (config_.rebalance_interval_s > 0) {
    auto& seen = observed_[l];
    for (std::size_t e = 0; e < seen.size(); ++e) seen[e] += static_cast<double>(counts_.expert_counts[e]);
  }
}

void LayerRouting::traffic(topology::AllToAllTraffic& out, bool per_pair_only) const {
  const int ranks = counts_.ranks;
  if (out.pair_bytes.ranks() != ranks) {
    out.pair_bytes = topology::TrafficMatrix(ranks);
    out.expert_bytes = topology::TrafficMatrix(ranks);
    out.node_bytes = topology::NodeTrafficMatrix(ranks, nodes_);
  }
  std::vector<double> node_pairs(static_cast<std::size_t>(nodes_));
  for (int s = 0; s < ranks; ++s) {
    double row = 0;
    for (int d = 0; d < ranks; ++d) row += static_cast<double>(counts_.pair(s, d));
    std::fill(node_pairs.begin(), node_pairs.end(), 0.0);
    for (int d = 0; d < ranks; ++d) {
      const double p = s == d ? 0.0 : static_cast<double>(counts_.pair(s, d));  // local pairs are not sent
      out.expert_bytes.at(s, d) = p;
      if (per_pair_only) continue;
      out.pair_bytes.at(s, d) = row > 0 ? distinct_tokens(p, p / row, model_.top_k) : 0.0;
      node_pairs[static_cast<std::size_t>(rank_node_[static_cast<std::size_t>(d)])] += p;
    }
    if (per_pair_only) continue;
    for (int n = 0; n < nodes_; ++n) {
      const double p = node_pairs[static_cast<std::size_t>(n)];
      out.node_bytes.at(s, n) = row > 0 ? distinct_tokens(p, p / row, model_.top_k) : 0.0;
    }
  }
}

std::vector<std::int64_t> LayerRouting::rebalance() {
  const auto r = sim::rebalance(placement_, config_, shape_, observed_);
  placement_ = r.placement;
  for (std::size_t l = 0; l < placement_.size(); ++l) targets_[l] = placement_[l].routing_targets(config_.replica_split);
  for (auto& seen : observed_) std::fill(seen.begin(), seen.end(), 0.0);
  return r.moved_per_rank;
}

}  // namespace moesim::sim
