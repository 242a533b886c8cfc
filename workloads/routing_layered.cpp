// layered-lognormal: expert popularity as measured in serving (DeepSeek-R1 statistics,
// docs/workloads.md "Measured routing").
//
// What the measurements show (TensorRT-LLM tech blog 4, DeepSeek-R1 at EP32, copied into the
// project's calibration data as expert_load_deepseek_r1.md): every layer has hot experts, a
// different set per layer; how skewed a layer is varies widely between layers (a rank imbalance
// of 0.46-0.54 in layers 3-5, 2.46 in layer 58); the hot pattern is stable over tens to hundreds
// of iterations but moves with the traffic (an EPLB placed from past statistics leaves 0.08-0.11).
//
// The model, per MoE layer l and step t, over E experts:
//   sigma_l  = layer_sigma * exp(layer_sigma_spread * N_l)            (a layer's skew; N_l ~ N(0,1))
//   x_e(t)   = sigma_l * Z_le + drift_sigma * Y_le(t)                  (Z_le ~ N(0,1), fixed)
//   p(t)     = softmax(x(t)), capped at 1 / top_k
// Y_le(t) is a stationary unit-variance process with a correlation time of `drift_steps` steps:
// independent N(0,1) knots every drift_steps steps, joined by Y = cos(pi u / 2) K_j + sin(pi u / 2)
// K_{j+1} (u the position between knots j and j+1), which keeps the variance 1 everywhere. It is
// evaluated every `drift_interval_steps` steps (popularity is piecewise constant in between, so
// the counts' setups are reused within an interval). Knots are hashed from (seed, layer, knot,
// expert), so any step of any layer can be asked for in any order (instances of a pool run at
// different step counts) at the cost of one layer's knots.
//
// The default parameters (workloads/workload_config.h) are fitted to the measured statistics;
// tests/workloads/routing_layered_test.cpp reproduces the fit's figures.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <numbers>
#include <string>

#include "workloads/routing_factories.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

// A standard normal from a 64-bit hash (Box-Muller on two 32-bit halves of the mixed bits).
double hashed_normal(std::uint64_t key) {
  const std::uint64_t a = splitmix64(key), b = splitmix64(a ^ 0xD1B54A32D192ED03ULL);
  const double u1 = (static_cast<double>(a >> 11) + 0.5) * 0x1.0p-53;  // (0, 1)
  const double u2 = static_cast<double>(b >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return splitmix64(splitmix64(splitmix64(seed ^ a) ^ b) ^ c);
}

class LayeredRouting final : public RoutingModel {
 public:
  LayeredRouting(int experts, const LayeredParams& p, int top_k, std::uint64_t seed)
      : experts_(experts), p_(p), cap_(1.0 / std::max(1, top_k)), seed_(seed) {}

  void expert_distribution(int moe_layer, std::int64_t step, std::span<double> probs) const override {
    if (probs.size() != static_cast<std::size_t>(experts_))
      throw WorkloadError("routing model built for another expert count");
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto l = static_cast<std::size_t>(std::max(0, moe_layer));
    if (l >= layers_.size()) layers_.resize(l + 1);
    Layer& s = layers_[l];
    if (s.mu.empty()) init_layer(s, l);
    const std::int64_t t = quantised_step(step);
    if (s.step != t) {
      advance(s, l, t);
      s.step = t;
    }
    std::copy(s.probs.begin(), s.probs.end(), probs.begin());
  }
  bool is_static() const override { return false; }
  bool is_step_invariant() const override { return p_.drift_sigma == 0; }

 private:
  struct Layer {
    std::vector<double> mu;      // sigma_l * Z_le
    std::vector<double> k0, k1;  // the knots around the current step
    std::int64_t knot = -1;      // index j of k0
    std::int64_t step = -1;      // the quantised step `probs` is for
    std::vector<double> probs;
  };

  std::int64_t quantised_step(std::int64_t step) const {
    const std::int64_t t = std::max<std::int64_t>(0, step);
    return t - t % p_.drift_interval_steps;
  }

  void init_layer(Layer& s, std::size_t l) const {
    const double sigma = p_.layer_sigma * std::exp(p_.layer_sigma_spread * hashed_normal(mix(seed_, 1, l, 0)));
    s.mu.resize(static_cast<std::size_t>(experts_));
    for (std::size_t e = 0; e < s.mu.size(); ++e) s.mu[e] = sigma * hashed_normal(mix(seed_, 2, l, e));
    s.probs.resize(s.mu.size());
  }

  void knots(std::vector<double>& k, std::size_t l, std::int64_t j) const {
    k.resize(static_cast<std::size_t>(experts_));
    for (std::size_t e = 0; e < k.size(); ++e)
      k[e] = hashed_normal(mix(seed_, 3 + (static_cast<std::uint64_t>(j) << 8), l, e));
  }

  void advance(Layer& s, std::size_t l, std::int64_t t) const {
    std::vector<double>& x = s.probs;  // logits first, then the popularity in place
    if (p_.drift_sigma > 0) {
      const std::int64_t j = t / p_.drift_steps;
      if (s.knot != j) {
        if (s.knot >= 0 && s.knot + 1 == j) {
          std::swap(s.k0, s.k1);
        } else {
          knots(s.k0, l, j);
        }
        knots(s.k1, l, j + 1);
        s.knot = j;
      }
      const double u = static_cast<double>(t - j * p_.drift_steps) / static_cast<double>(p_.drift_steps);
      const double a = p_.drift_sigma * std::cos(0.5 * std::numbers::pi * u);
      const double b = p_.drift_sigma * std::sin(0.5 * std::numbers::pi * u);
      for (std::size_t e = 0; e < x.size(); ++e) x[e] = s.mu[e] + a * s.k0[e] + b * s.k1[e];
    } else {
      std::copy(s.mu.begin(), s.mu.end(), x.begin());
    }
    const double top = *std::max_element(x.begin(), x.end());
    double total = 0;
    for (auto& v : x) total += v = std::exp(v - top);
    for (auto& v : x) v /= total;
    cap_probabilities(x, cap_);
  }

  int experts_;
  LayeredParams p_;
  double cap_;
  std::uint64_t seed_;
  mutable std::vector<Layer> layers_;
  // The instances of a run share the model, and parallel steps ask for it from several threads
  // (sim/step_workers.h): the cache is filled under a lock.
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<RoutingModel> make_layered_routing(int experts, const LayeredParams& p, int top_k, std::uint64_t seed) {
  if (!(p.layer_sigma >= 0) || p.layer_sigma > 10)
    throw WorkloadError("layered-lognormal routing needs 0 <= layer_sigma <= 10");
  if (!(p.layer_sigma_spread >= 0) || p.layer_sigma_spread > 5)
    throw WorkloadError("layered-lognormal routing needs 0 <= layer_sigma_spread <= 5");
  if (!(p.drift_sigma >= 0) || p.drift_sigma > 10)
    throw WorkloadError("layered-lognormal routing needs 0 <= step_sigma <= 10");
  if (p.drift_steps < 1) throw WorkloadError("layered-lognormal routing needs step_memory >= 1");
  if (p.drift_interval_steps < 1) throw WorkloadError("layered-lognormal routing needs step_interval >= 1");
  return std::make_unique<LayeredRouting>(experts, p, std::max(1, top_k), seed);
}

}  // namespace moesim::workloads
