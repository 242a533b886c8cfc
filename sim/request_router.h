// Request routing across the instances of the entry pool (the colocated pool, or the prefill pool
// of a disaggregated deployment), a registry (docs/serving.md "Request routing"). The router
// picks an instance and the attention-DP rank within it that will hold the request's KV:
//
//   least-loaded  the instance with the fewest requests outstanding, then its rank with the fewest
//                 queued or running (lowest index on a tie). The default.
//   round-robin   instances in turn, then the instance's least-loaded rank.
//   prefix-aware  the rank of least cost = overlap_weight x (prompt tokens it would prefill, what its
//                 prefix cache does not hold) + (KV tokens its requests hold or wait to prefill),
//                 over every rank of every instance (lowest index on a tie): the cost function of
//                 NVIDIA Dynamo's KV router (potential prefill blocks weighted by
//                 kv-overlap-score-weight, default 1, plus potential active blocks), in tokens.
//                 It sends a conversation back to the rank that holds its earlier turns unless
//                 that rank is loaded by more than the prefill it would save.
//
// A disaggregated deployment's decode instances are always chosen least-loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/deployment_config.h"
#include "sim/scheduler.h"
#include "workloads/registry.h"

namespace moesim::sim {

std::vector<workloads::RegistryEntry> router_policies();
// The policy of a registry name; throws DeploymentError listing the valid ones.
RouterPolicy router_policy(const std::string& name);
const char* to_string(RouterPolicy policy);

struct RouteChoice {
  std::size_t instance = 0;  // index into the candidates
  int rank = -1;             // -1: the instance's least-loaded rank
};

// The least-loaded of `n` instances, `scheduler(i)` giving the i-th one's scheduler: the fewest
// requests outstanding, the lowest index on a tie. The least-loaded policy, and how a prefill
// instance picks the decode instance it hands a request to.
template <typename SchedulerAt>
std::size_t least_loaded(std::size_t n, SchedulerAt scheduler) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (scheduler(i).outstanding() < scheduler(best).outstanding()) best = i;
  return best;
}

class RequestRouter {
 public:
  explicit RequestRouter(const RouterConfig& config) : c_(config) {}
  RouteChoice route(std::size_t request, const std::vector<const Scheduler*>& instances);

 private:
  RouterConfig c_;
  std::size_t next_ = 0;  // round-robin
};

}  // namespace moesim::sim
