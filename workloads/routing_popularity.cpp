// Static popularity models: uniform, zipf, hot-set. Zipf and hot-set draw one random permutation
// of the experts per MoE layer from the routing seed (so which experts are hot differs per layer,
// as measured on DeepSeek and Mixtral routers) and memoise each layer's distribution.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <string>

#include "workloads/routing_factories.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

class UniformRouting final : public RoutingModel {
 public:
  void expert_distribution(int, std::int64_t, std::span<double> probs) const override {
    std::fill(probs.begin(), probs.end(), 1.0 / static_cast<double>(probs.size()));
  }
  bool is_static() const override { return true; }
};

// `weights_by_rank[i]`: the unnormalised weight of the i-th most popular expert; layer l maps rank
// i to expert perm_l[i].
class PermutedRouting final : public RoutingModel {
 public:
  PermutedRouting(std::vector<double> weights_by_rank, int top_k, std::uint64_t seed)
      : by_rank_(std::move(weights_by_rank)), seed_(seed) {
    const double total = std::accumulate(by_rank_.begin(), by_rank_.end(), 0.0);
    for (auto& w : by_rank_) w /= total;
    cap_probabilities(by_rank_, 1.0 / std::max(1, top_k));
  }
  void expert_distribution(int moe_layer, std::int64_t, std::span<double> probs) const override {
    if (probs.size() != by_rank_.size()) throw WorkloadError("routing model built for another expert count");
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto l = static_cast<std::size_t>(std::max(0, moe_layer));
    if (l >= layers_.size()) layers_.resize(l + 1);
    auto& p = layers_[l];
    if (p.empty()) {
      std::vector<std::size_t> perm(by_rank_.size());
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      Rng rng = make_stream(seed_, "routing-layer-" + std::to_string(l));
      std::shuffle(perm.begin(), perm.end(), rng);
      p.resize(by_rank_.size());
      for (std::size_t i = 0; i < perm.size(); ++i) p[perm[i]] = by_rank_[i];
    }
    std::copy(p.begin(), p.end(), probs.begin());
  }
  bool is_static() const override { return false; }
  bool is_step_invariant() const override { return true; }

 private:
  std::vector<double> by_rank_;
  std::uint64_t seed_;
  mutable std::vector<std::vector<double>> layers_;  // memoised per-layer distributions
  // The instances of a run share the model, and parallel steps ask for it from several threads
  // (sim/step_workers.h): the cache is filled under a lock.
  mutable std::mutex mutex_;
};

}  // namespace

void cap_probabilities(std::span<double> probs, double cap) {
  if (cap * static_cast<double>(probs.size()) < 1.0 - 1e-12) return;  // infeasible: leave as is
  for (int round = 0; round < 64; ++round) {
    double excess = 0, free_mass = 0;
    for (double p : probs) {
      if (p > cap) excess += p - cap;
      if (p < cap) free_mass += p;
    }
    if (excess <= 1e-15 || free_mass <= 0) return;
    for (auto& p : probs) p = p >= cap ? cap : p + excess * p / free_mass;
  }
}

std::unique_ptr<RoutingModel> make_uniform_routing() { return std::make_unique<UniformRouting>(); }

std::unique_ptr<RoutingModel> make_zipf_routing(int experts, double s, int top_k, std::uint64_t seed) {
  if (!(s >= 0) || s > 10) throw WorkloadError("zipf routing needs 0 <= s <= 10");
  std::vector<double> w(static_cast<std::size_t>(experts));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::pow(static_cast<double>(i + 1), -s);
  return std::make_unique<PermutedRouting>(std::move(w), top_k, seed);
}

std::unique_ptr<RoutingModel> make_hot_set_routing(int experts, int hot, double fraction, int top_k,
                                                   std::uint64_t seed) {
  if (hot < 1 || hot > experts) throw WorkloadError("hot-set routing needs 1 <= hot_experts <= experts");
  if (!(fraction >= 0 && fraction <= 1)) throw WorkloadError("hot-set routing needs 0 <= hot_fraction <= 1");
  std::vector<double> w(static_cast<std::size_t>(experts));
  for (int i = 0; i < experts; ++i)
    w[static_cast<std::size_t>(i)] =
        i < hot ? fraction / hot : (1 - fraction) / (experts - hot);  // hot == experts: uniform
  return std::make_unique<PermutedRouting>(std::move(w), top_k, seed);
}

}  // namespace moesim::workloads
