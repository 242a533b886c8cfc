#include "workloads/routing_model.h"

#include "workloads/binomial.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace moesim::workloads {
namespace {

class UniformRouting final : public RoutingModel {
 public:
  void expert_distribution(int, std::int64_t, std::span<double> probs) const override {
    std::fill(probs.begin(), probs.end(), 1.0 / static_cast<double>(probs.size()));
  }
  bool is_static() const override { return true; }
};

}  // namespace

std::vector<RegistryEntry> routing_models() {
  return {{"uniform", "every expert equally likely in every layer (the balanced ideal)"}};
}

std::unique_ptr<RoutingModel> make_routing_model(const RoutingConfig& config, int experts) {
  if (experts <= 0) throw std::invalid_argument("routing model needs at least one expert");
  if (config.model == "uniform") return std::make_unique<UniformRouting>();
  std::string valid;
  for (const auto& e : routing_models()) valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("unknown routing model '" + config.model + "' (valid: " + valid + ")");
}

void sample_multinomial(std::int64_t n, std::span<const double> probs, Rng& rng, std::span<std::int64_t> out) {
  double mass = std::accumulate(probs.begin(), probs.end(), 0.0);
  for (std::size_t i = 0; i < probs.size() && n > 0; ++i) {
    if (probs[i] <= 0) continue;
    std::int64_t c;
    if (i + 1 == probs.size() || probs[i] >= mass) {
      c = n;
    } else {
      const double p = std::clamp(probs[i] / mass, 0.0, 1.0);
      c = sample_binomial(n, p, rng);
    }
    out[i] += c;
    n -= c;
    mass -= probs[i];
  }
}

}  // namespace moesim::workloads
