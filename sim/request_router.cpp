#include "sim/request_router.h"

#include "models/registry.h"
#include "sim/deployment_error.h"

namespace moesim::sim {

std::vector<workloads::RegistryEntry> router_policies() {
  return {
      {"least-loaded", "the instance with the fewest requests outstanding, then its least-loaded rank"},
      {"round-robin", "instances in turn, then the instance's least-loaded rank"},
      {"prefix-aware",
       "the rank of least overlap_weight x uncached prompt tokens + KV tokens held or queued (Dynamo's KV router)"},
  };
}

RouterPolicy router_policy(const std::string& name) {
  if (const auto policy = models::registry_lookup<RouterPolicy>(router_policies(), name)) return *policy;
  throw DeploymentError("unknown request router policy '" + name +
                        "' (valid: " + workloads::join_names(router_policies()) + ")");
}

const char* to_string(RouterPolicy policy) {
  switch (policy) {
    case RouterPolicy::kRoundRobin: return "round-robin";
    case RouterPolicy::kPrefixAware: return "prefix-aware";
    case RouterPolicy::kLeastLoaded: break;
  }
  return "least-loaded";
}

RouteChoice RequestRouter::route(std::size_t request, const std::vector<const Scheduler*>& instances) {
  RouteChoice best;
  switch (c_.policy) {
    case RouterPolicy::kLeastLoaded:
      best.instance = least_loaded(instances.size(), [&](std::size_t i) -> const Scheduler& { return *instances[i]; });
      return best;
    case RouterPolicy::kRoundRobin:
      best.instance = next_;
      next_ = (next_ + 1) % instances.size();
      return best;
    case RouterPolicy::kPrefixAware: break;
  }
  double best_cost = 0;
  bool first = true;
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const Scheduler& s = *instances[i];
    for (int r = 0; r < s.attention_ranks(); ++r) {
      const double prefill = static_cast<double>(s.input_tokens(request) - s.cached_prefix_tokens(request, r));
      const double cost = c_.overlap_weight * prefill + static_cast<double>(s.load_tokens(r));
      if (first || cost < best_cost) {
        best = {i, r};
        best_cost = cost;
        first = false;
      }
    }
  }
  return best;
}

}  // namespace moesim::sim
