#include "sim/layer_routing.h"

#include <algorithm>

namespace moesim::sim {

LayerRouting::LayerRouting(const models::ModelSpec& model, const InstanceLayout& deployment,
                           const workloads::RoutingModel& routing)
    : model_(model), deployment_(deployment), routing_(routing), ranks_(deployment.ranks()) {
  const auto n = static_cast<std::size_t>(ranks_);
  probs_.resize(static_cast<std::size_t>(model.routed_experts));
  rank_mass_.resize(n);
  pairs_.resize(n * n);
  expert_counts_.resize(static_cast<std::size_t>(model.routed_experts));
}

std::span<const std::int64_t> LayerRouting::local_counts(int rank) const {
  const auto per = static_cast<std::size_t>(deployment_.experts_per_rank());
  return std::span<const std::int64_t>(expert_counts_).subspan(static_cast<std::size_t>(rank) * per, per);
}

void LayerRouting::draw(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens, workloads::Rng& rng) {
  if (!cached_ || !routing_.is_static()) {
    routing_.expert_distribution(moe_layer, step, probs_);
    std::fill(rank_mass_.begin(), rank_mass_.end(), 0.0);
    for (int e = 0; e < model_.routed_experts; ++e)
      rank_mass_[static_cast<std::size_t>(deployment_.expert_rank(e))] += probs_[static_cast<std::size_t>(e)];
    cached_ = true;
  }
  const auto n = static_cast<std::size_t>(ranks_);
  std::fill(pairs_.begin(), pairs_.end(), 0);
  std::fill(expert_counts_.begin(), expert_counts_.end(), 0);
  total_pairs_ = total_received_ = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const std::int64_t pairs = tokens[s] * model_.top_k;
    if (pairs == 0) continue;
    total_pairs_ += pairs;
    workloads::sample_multinomial(pairs, rank_mass_, rng, std::span(pairs_).subspan(s * n, n));
  }
  const auto per = static_cast<std::size_t>(deployment_.experts_per_rank());
  for (std::size_t d = 0; d < n; ++d) {
    std::int64_t received = 0;
    for (std::size_t s = 0; s < n; ++s) received += pairs_[s * n + d];
    if (received == 0) continue;
    workloads::sample_multinomial(received, std::span<const double>(probs_).subspan(d * per, per), rng,
                                  std::span(expert_counts_).subspan(d * per, per));
  }
  for (auto c : expert_counts_) total_received_ += c;
}

void LayerRouting::traffic(double dispatch_bytes_per_pair, double combine_bytes_per_pair,
                           topology::TrafficMatrix& dispatch, topology::TrafficMatrix& combine) const {
  for (int s = 0; s < ranks_; ++s)
    for (int d = 0; d < ranks_; ++d) {
      const double p = s == d ? 0.0 : static_cast<double>(pairs(s, d));  // local pairs are not sent
      dispatch.at(s, d) = p * dispatch_bytes_per_pair;
      combine.at(d, s) = p * combine_bytes_per_pair;
    }
}

}  // namespace moesim::sim
