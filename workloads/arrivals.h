// Request generation: arrival processes and length distributions (registries).
//
// `generate_requests` draws the whole request list up front from its own random stream, so the
// workload does not depend on how the simulator consumes it.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

struct Request {
  std::int64_t id = 0;
  std::int64_t arrival_ns = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

std::vector<RegistryEntry> arrival_processes();
std::vector<RegistryEntry> length_distributions();

// Requests sorted by arrival time. Throws std::invalid_argument for an unknown process or
// distribution name (the scenario loader validates names first, so this is a programming error).
std::vector<Request> generate_requests(const WorkloadConfig& config, Rng& rng);

}  // namespace moesim::workloads
