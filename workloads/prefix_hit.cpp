#include "workloads/prefix_hit.h"

#include <algorithm>
#include <string>

#include "workloads/workload_error.h"

namespace moesim::workloads {

std::vector<RegistryEntry> prefix_hit_distributions() {
  return {
      {"fixed", "every prompt has the fraction `value` cached"},
      {"uniform", "fraction uniform in [min, max]"},
      {"beta", "fraction ~ Beta with the given mean and concentration (alpha + beta)"},
      {"trace", "from the trace's block hashes (Mooncake hash_ids): leading blocks seen before, one unbounded cache"},
      {"cache", "from the prefix cache (LRU, in the KV memory left free) of the rank the request is routed to"},
  };
}

PrefixHitDist prefix_hit_distribution(std::string_view name) {
  return registry_value<PrefixHitDist>(prefix_hit_distributions(), name, "prefix hit distribution");
}

std::string_view to_string(PrefixHitDist dist) { return registry_name(prefix_hit_distributions(), dist); }

PrefixHitSampler::PrefixHitSampler(const PrefixHitConfig& config) : c_(config) {
  const auto bad = [&](const std::string& why) {
    throw WorkloadError("prefix hit '" + std::string(to_string(c_.dist)) + "': " + why);
  };
  const auto unit = [](double x) { return x >= 0 && x <= 1; };
  switch (c_.dist) {
    case PrefixHitDist::kFixed:
      if (!unit(c_.value)) bad("value must be in [0, 1]");
      break;
    case PrefixHitDist::kUniform:
      if (!unit(c_.min) || !unit(c_.max) || c_.max < c_.min) bad("needs 0 <= min <= max <= 1");
      break;
    case PrefixHitDist::kBeta:
      if (!(c_.mean > 0 && c_.mean < 1) || !(c_.concentration > 0)) bad("needs 0 < mean < 1 and concentration > 0");
      ga_ = std::gamma_distribution<double>(c_.mean * c_.concentration, 1.0);
      gb_ = std::gamma_distribution<double>((1 - c_.mean) * c_.concentration, 1.0);
      break;
    case PrefixHitDist::kTrace:
    case PrefixHitDist::kCache:
      if (c_.block_tokens < 1) bad("block_tokens must be >= 1");
      break;
  }
}

double PrefixHitSampler::operator()(Rng& rng) {
  if (c_.dist == PrefixHitDist::kFixed) return c_.value;
  if (c_.dist == PrefixHitDist::kUniform) return std::uniform_real_distribution<double>(c_.min, c_.max)(rng);
  if (c_.dist == PrefixHitDist::kBeta) {
    const double a = ga_(rng), b = gb_(rng);  // Beta(a, b) = Ga / (Ga + Gb)
    return a + b > 0 ? std::clamp(a / (a + b), 0.0, 1.0) : c_.mean;
  }
  return 0.0;
}

}  // namespace moesim::workloads
