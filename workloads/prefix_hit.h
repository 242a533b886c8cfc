// Prefix-cache hit fraction per request (a registry): the share of a prompt's tokens whose KV is
// already cached (a shared system prompt, an earlier turn of the conversation) and need no
// prefill compute. fixed (value), uniform (min, max), beta (mean, concentration = alpha + beta),
// trace (from a Mooncake trace's hash_ids: the leading blocks already seen by earlier requests,
// with an unbounded cache; requests without hash_ids get 0).
#pragma once

#include <random>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

std::vector<RegistryEntry> prefix_hit_distributions();

class PrefixHitSampler {
 public:
  // Throws std::invalid_argument for an unknown name or parameters outside [0, 1].
  explicit PrefixHitSampler(const PrefixHitConfig& config);
  bool from_trace() const { return c_.dist == "trace"; }
  double operator()(Rng& rng);  // in [0, 1]; 0 for "trace" (the trace supplies it)

 private:
  PrefixHitConfig c_;
  std::gamma_distribution<double> ga_, gb_;
};

}  // namespace moesim::workloads
