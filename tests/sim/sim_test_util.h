// Shared fixtures for the sim tests: small, fast configurations built in code.
#pragma once

#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "sim/simulation.h"

namespace moesim::sim::testing {

// DeepSeek-V3 on `nodes` HGX H800 nodes, EP over all GPUs, fixed lengths, Poisson arrivals.
inline SimulationConfig dsv3_config(int nodes, std::int64_t requests, double rate_per_s, std::int64_t input,
                                    std::int64_t output) {
  SimulationConfig c;
  c.model = *models::find_model_preset("deepseek-v3");
  c.hardware = *calibration::find_hardware_preset("h800");
  c.cluster.nodes = nodes;
  const int ranks = nodes * 8;
  c.deployment.colocated.ranks = ranks;
  c.deployment.colocated.attention_dp = ranks;
  c.deployment.colocated.moe_ep = ranks;
  c.workload.requests = requests;
  c.workload.arrivals.rate_per_s = rate_per_s;
  c.workload.input_tokens = {workloads::LengthDist::kFixed, input};
  c.workload.output_tokens = {workloads::LengthDist::kFixed, output};
  c.seed = 11;
  return c;
}

// The 4-layer test model on one 8-GPU node.
inline SimulationConfig tiny_config(std::int64_t requests) {
  SimulationConfig c;
  c.model = *models::find_model_preset("tiny-moe");
  c.hardware = *calibration::find_hardware_preset("h800");
  c.cluster.nodes = 1;
  c.deployment.colocated.ranks = 8;
  c.deployment.colocated.attention_dp = 8;
  c.deployment.colocated.moe_ep = 8;
  c.workload.requests = requests;
  c.workload.arrivals.rate_per_s = 200;
  c.workload.input_tokens = {workloads::LengthDist::kFixed, 300};
  c.workload.output_tokens = {workloads::LengthDist::kFixed, 20};
  c.seed = 3;
  return c;
}

}  // namespace moesim::sim::testing
