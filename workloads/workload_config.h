// Typed configuration of the request workload (arrivals and lengths) and of routing.
#pragma once

#include <cstdint>
#include <string>

namespace moesim::workloads {

struct ArrivalConfig {
  std::string process = "poisson";  // registry name, see workloads/arrivals.h
  double rate_per_s = 10.0;         // mean arrival rate
};

struct LengthConfig {
  std::string dist = "fixed";  // registry name, see workloads/lengths.h
  std::int64_t value = 1;      // fixed: every request has this many tokens
};

struct WorkloadConfig {
  std::int64_t requests = 100;  // number of requests to generate
  ArrivalConfig arrivals;
  LengthConfig input_tokens{"fixed", 1000};
  LengthConfig output_tokens{"fixed", 100};
};

struct RoutingConfig {
  std::string model = "uniform";  // registry name, see workloads/routing_model.h
};

}  // namespace moesim::workloads
