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

PrefixHitSampler::PrefixHitSampler(const PrefixHitConfig& config) : c_(config) {
  const auto bad = [&](const std::string& why) { throw WorkloadError("prefix hit '" + c_.dist + "': " + why); };
  const auto unit = [](double x) { return x >= 0 && x <= 1; };
  if (c_.dist == "fixed") {
    if (!unit(c_.value)) bad("value must be in [0, 1]");
  } else if (c_.dist == "uniform") {
    if (!unit(c_.min) || !unit(c_.max) || c_.max < c_.min) bad("needs 0 <= min <= max <= 1");
  } else if (c_.dist == "beta") {
    if (!(c_.mean > 0 && c_.mean < 1) || !(c_.concentration > 0)) bad("needs 0 < mean < 1 and concentration > 0");
    ga_ = std::gamma_distribution<double>(c_.mean * c_.concentration, 1.0);
    gb_ = std::gamma_distribution<double>((1 - c_.mean) * c_.concentration, 1.0);
  } else if (c_.dist == "trace" || c_.dist == "cache") {
    if (c_.block_tokens < 1) bad("block_tokens must be >= 1");
  } else {
    throw WorkloadError("unknown prefix hit distribution '" + c_.dist +
                        "' (valid: " + join_names(prefix_hit_distributions()) + ")");
  }
}

double PrefixHitSampler::operator()(Rng& rng) {
  if (c_.dist == "fixed") return c_.value;
  if (c_.dist == "uniform") return std::uniform_real_distribution<double>(c_.min, c_.max)(rng);
  if (c_.dist == "beta") {
    const double a = ga_(rng), b = gb_(rng);  // Beta(a, b) = Ga / (Ga + Gb)
    return a + b > 0 ? std::clamp(a / (a + b), 0.0, 1.0) : c_.mean;
  }
  return 0.0;
}

}  // namespace moesim::workloads
