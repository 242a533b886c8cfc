// Simulation: one scenario's serving run, from request arrivals to the last token (DESIGN.md §4).
//
// The event engine carries three kinds of events: a request's arrival, the end of an instance's
// step, and (disaggregated) the arrival of a prompt's KV cache at a decode instance. When a step
// ends the instance's scheduler applies it and, if any rank has work, the next step starts at
// once (continuous batching); otherwise the instance idles until work arrives. Arrivals go to
// the entry pool's least-loaded instance; prompts finished by a prefill instance are sent to the
// least-loaded decode instance. All randomness comes from streams derived from `seed`, so a run
// is reproducible bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/metrics.h"
#include "sim/trace.h"
#include "topology/cluster.h"
#include "workloads/workload_config.h"

namespace moesim::sim {

struct SimulationConfig {
  models::ModelSpec model;
  calibration::HardwareProfile hardware;
  topology::ClusterConfig cluster;                  // the preset built when `fabric` is null
  std::shared_ptr<const topology::Cluster> fabric;  // a custom fabric (topology_yaml.h), or null
  DeploymentConfig deployment;
  workloads::RoutingConfig routing;
  workloads::WorkloadConfig workload;
  SloTargets slo;
  std::string cost_model = "fitted";
  std::uint64_t seed = 1;
  std::optional<TraceOptions> trace;  // record op-level events for Perfetto
};

struct SimulationResult {
  Summary summary;
  std::vector<RequestRecord> requests;
  std::vector<StepRecord> steps;
  std::vector<PoolResult> pools;  // in deployment order
  std::uint64_t events = 0;
  std::vector<TraceEvent> trace;  // empty unless SimulationConfig::trace
  bool trace_truncated = false;   // the event cap was reached
};

// Throws DeploymentError or topology::TopologyError for a deployment that cannot run.
SimulationResult simulate(const SimulationConfig& config);

}  // namespace moesim::sim
