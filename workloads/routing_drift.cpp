// dirichlet-drift: per-layer popularity that drifts over time.
//
// Layer l starts from a Dirichlet(alpha) popularity p0 (alpha < 1: a few dominant experts; alpha
// large: near uniform). Its logits x follow a stationary AR(1) around mu = ln p0, advanced once
// every `interval` steps:  x_{t+1} = mu + rho (x_t - mu) + sigma sqrt(1 - rho^2) eps,  eps ~ N(0, 1)
// per expert, x_0 = mu + sigma eps, so every step has the same marginal law (logit standard
// deviation sigma around mu) and the correlation between steps t and t + h is rho^h (a
// popularity "memory" of about 1 / (1 - rho) intervals). probs = softmax(x), capped at 1/top_k. The state is
// memoised per layer; asking for an earlier step replays the layer's stream from the start.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>
#include <string>

#include "workloads/routing_factories.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

class DriftRouting final : public RoutingModel {
 public:
  DriftRouting(int experts, double alpha, double rho, double sigma, std::int64_t interval, int top_k,
               std::uint64_t seed)
      : experts_(experts),
        alpha_(alpha),
        rho_(rho),
        sigma_(sigma),
        interval_(interval),
        cap_(1.0 / top_k),
        seed_(seed) {}

  void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const override {
    if (probs.size() != static_cast<std::size_t>(experts_))
      throw WorkloadError("routing model built for another expert count");
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto l = static_cast<std::size_t>(std::max(0, moe_layer));
    if (l >= layers_.size()) layers_.resize(l + 1);
    auto& s = layers_[l];
    const std::int64_t t = std::max<std::int64_t>(0, step) / interval_;
    if (s.t < 0 || t < s.t) reset(s, l);
    std::normal_distribution<double> eps(0.0, 1.0);
    const double innovation = sigma_ * std::sqrt(1 - rho_ * rho_);
    for (; s.t < t; ++s.t)
      for (std::size_t e = 0; e < s.x.size(); ++e)
        s.x[e] = s.mu[e] + rho_ * (s.x[e] - s.mu[e]) + innovation * eps(s.rng);
    const double top = *std::max_element(s.x.begin(), s.x.end());
    double total = 0;
    for (std::size_t e = 0; e < s.x.size(); ++e) total += probs[e] = std::exp(s.x[e] - top);
    for (auto& p : probs) p /= total;
    cap_probabilities(probs, cap_);
  }
  bool is_static() const override { return false; }
  bool is_step_invariant() const override { return sigma_ == 0 || rho_ == 1; }

 private:
  struct Layer {
    std::int64_t t = -1;
    std::vector<double> mu, x;
    Rng rng;
  };
  void reset(Layer& s, std::size_t layer) const {
    s.rng = make_stream(seed_, "drift-layer-" + std::to_string(layer));
    std::gamma_distribution<double> g(alpha_, 1.0);
    std::normal_distribution<double> eps(0.0, 1.0);
    s.mu.assign(static_cast<std::size_t>(experts_), 0.0);
    double total = 0;
    for (auto& m : s.mu) total += m = g(s.rng);
    for (auto& m : s.mu) m = std::log(std::max(m / total, 1e-12));  // floor: no expert is never chosen
    s.x = s.mu;
    for (auto& x : s.x) x += sigma_ * eps(s.rng);
    s.t = 0;
  }

  int experts_;
  double alpha_, rho_, sigma_;
  std::int64_t interval_;
  double cap_;
  std::uint64_t seed_;
  mutable std::vector<Layer> layers_;
  // The instances of a run share the model, and parallel steps ask for it from several threads
  // (sim/step_workers.h): the cache is filled under a lock.
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<RoutingModel> make_drift_routing(int experts, double alpha, double rho, double sigma,
                                                 std::int64_t interval_steps, int top_k, std::uint64_t seed) {
  if (!(alpha > 0)) throw WorkloadError("dirichlet-drift routing needs alpha > 0");
  if (!(rho >= 0 && rho <= 1)) throw WorkloadError("dirichlet-drift routing needs 0 <= drift_rho <= 1");
  if (!(sigma >= 0) || sigma > 20) throw WorkloadError("dirichlet-drift routing needs 0 <= drift_sigma <= 20");
  if (interval_steps < 1) throw WorkloadError("dirichlet-drift routing needs drift_interval_steps >= 1");
  return std::make_unique<DriftRouting>(experts, alpha, rho, sigma, interval_steps, std::max(1, top_k), seed);
}

}  // namespace moesim::workloads
