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
#include <random>
#include <string_view>
#include <vector>

#include "workloads/lengths.h"  // length_distributions(), for callers of the registries
#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

inline constexpr std::int64_t kArrivesOnRelease = -1;

// What names a prompt's blocks for the simulator's prefix caches (sim/prefix_cache.h): block j
// (tokens [j B, (j + 1) B) at B = prefix_hit.block_tokens) is named by one hash standing for
// every token up to its end, so two prompts share their leading blocks exactly when they share
// that prefix. Either explicit hashes (a Mooncake trace's hash_ids, one per block, the last one
// possibly partial), or a conversation (workloads/sessions.h): blocks wholly inside the shared
// system prompt are named by (system prompt, j), every later one by (session, j), and only full
// blocks are named (a partial last block changes when the conversation goes on).
struct PrefixKey {
  std::vector<std::uint64_t> hashes;  // explicit: one per block of the prompt
  std::uint64_t system = 0;           // conversation: system prompt id + 1 (0: none)
  std::uint64_t session = 0;          // conversation: session id + 1 (0 with no hashes: no key)
  std::int64_t system_tokens = 0;     // conversation: tokens of the system prompt
  bool empty() const { return hashes.empty() && session == 0; }
  // Blocks named within the first `tokens` tokens.
  std::int64_t blocks(std::int64_t tokens, int block_tokens) const;
  std::uint64_t block(std::int64_t j, int block_tokens) const;  // j < blocks(...)
};

struct Request {
  std::int64_t id = 0;
  std::int64_t arrival_ns = 0;  // kArrivesOnRelease: closed loop, released by the simulator
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double prefix_hit = 0.0;             // fraction of the prompt whose KV is already cached, in [0, 1]
  std::int64_t cached_tokens() const;  // prefix-cache hit in whole tokens, at most input_tokens - 1
  PrefixKey prefix;                    // prefix_hit 'cache': what the simulator's caches match
  std::int64_t next_turn = -1;         // sessions: the session's next turn, sent once this one is done
  std::int64_t think_ns = 0;           // sessions: how long after the previous turn this one is sent
};

// Arrival times of an open-loop process (poisson, gamma, constant): the i-th call gives the i-th
// arrival in ns. Poisson and gamma: the first arrival also waits a gap; constant: i / rate.
class ArrivalClock {
 public:
  explicit ArrivalClock(const ArrivalConfig& config);
  std::int64_t next(Rng& rng);

 private:
  ArrivalConfig a_;
  std::exponential_distribution<double> exp_gap_;
  std::gamma_distribution<double> gamma_gap_;
  double t_s_ = 0;
  std::int64_t i_ = 0;
};

// In the order of ArrivalProcess (workload_config.h).
std::vector<RegistryEntry> arrival_processes();
ArrivalProcess arrival_process(std::string_view name);  // WorkloadError for an unknown name
std::string_view to_string(ArrivalProcess process);

// Requests sorted by arrival time (id order for closed loop). Throws WorkloadError for a bad
// parameter (the scenario loader validates first), or for a bad trace or
// lengths file (file:line).
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
