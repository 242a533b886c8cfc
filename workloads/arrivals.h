// Request generation: arrival processes (a registry), length distributions (workloads/lengths.h)
// and prefix-cache hits (workloads/prefix_hit.h).
//
// `generate_requests` draws the whole request list up front from its own random stream, so the
// workload does not depend on how the simulator consumes it. Open-loop processes (poisson, gamma,
// constant, trace) give every request an arrival time. The closed-loop process gives every request
// arrival_ns = kArrivesOnRelease: the simulator releases the first `concurrency` requests at time
// 0 and, each time a request finishes at time t, the next unreleased one (in id order) at
// t + think_time (see ClosedLoop below, the bookkeeping it needs).
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/lengths.h"  // length_distributions(), for callers of the registries
#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

inline constexpr std::int64_t kArrivesOnRelease = -1;

struct Request {
  std::int64_t id = 0;
  std::int64_t arrival_ns = 0;  // kArrivesOnRelease: closed loop, released by the simulator
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double prefix_hit = 0.0;             // fraction of the prompt whose KV is already cached, in [0, 1]
  std::int64_t cached_tokens() const;  // prefix-cache hit in whole tokens, at most input_tokens - 1
};

std::vector<RegistryEntry> arrival_processes();

// Requests sorted by arrival time (id order for closed loop). Throws std::invalid_argument for an
// unknown name or a bad parameter (the scenario loader validates first), WorkloadError for a bad
// trace or lengths file (file:line).
std::vector<Request> generate_requests(const WorkloadConfig& config, Rng& rng);

// Closed-loop release bookkeeping for the simulator: `initial()` lists the requests to release at
// time 0; `on_finish(now_ns)` returns the next request to release and sets its arrival time
// (now + think time), or -1 when every request has been released.
class ClosedLoop {
 public:
  ClosedLoop(std::vector<Request>& requests, const ArrivalConfig& config);
  std::vector<std::size_t> initial();
  std::int64_t on_finish(std::int64_t now_ns);

 private:
  std::vector<Request>& requests_;
  std::size_t concurrency_;
  std::int64_t think_ns_;
  std::size_t next_ = 0;
};

}  // namespace moesim::workloads
