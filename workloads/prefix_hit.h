// Prefix-cache hit fraction per request (a registry): the share of a prompt's tokens whose KV is
// already cached (a shared system prompt, an earlier turn of the conversation) and need no
// prefill compute. fixed (value), uniform (min, max), beta (mean, concentration = alpha + beta),
// trace (from a Mooncake trace's hash_ids: the leading blocks already seen by earlier requests,
// with one unbounded cache for the whole deployment; requests without hash_ids get 0), cache (the
// simulator's own prefix cache of the rank a request is routed to: sim/prefix_cache.h, matched on
// the request's block names, a trace's hash_ids or a session's conversation).
#pragma once

#include <random>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

// In the order of PrefixHitDist (workload_config.h).
std::vector<RegistryEntry> prefix_hit_distributions();
PrefixHitDist prefix_hit_distribution(std::string_view name);  // WorkloadError for an unknown name
std::string_view to_string(PrefixHitDist dist);

class PrefixHitSampler {
 public:
  // Throws WorkloadError for parameters outside [0, 1].
  explicit PrefixHitSampler(const PrefixHitConfig& config);
  bool from_trace() const { return c_.dist == PrefixHitDist::kTrace; }
  bool from_caches() const { return c_.dist == PrefixHitDist::kCache; }
  double operator()(Rng& rng);  // in [0, 1]; 0 for "trace" and "cache" (they supply it)

 private:
  PrefixHitConfig c_;
  std::gamma_distribution<double> ga_, gb_;
};

}  // namespace moesim::workloads
