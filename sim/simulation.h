// Simulation: one scenario's serving run, from request arrivals to the last token (docs/design.md §4).
//
// The event engine carries three kinds of events: a request's arrival, the end of an instance's
// step, and (disaggregated) the arrival of a prompt's KV cache at a decode instance. When a step
// ends the instance's scheduler applies it and, if any rank has work, the next step starts at
// once (continuous batching); otherwise the instance idles until work arrives. Arrivals go to
// the entry pool's least-loaded instance; prompts finished by a prefill instance are sent to the
// least-loaded decode instance. All randomness comes from streams derived from `seed`, so a run
// is reproducible bit for bit.
//
// A run can be bounded (RunLimits): when simulated time would pass max_sim_time, or the run has
// taken max_wall_s of wall-clock time (checked every 256 events), it stops before the next event;
// the result is then `partial`, with the reason, and holds what had finished by then. At the end
// the invariants of sim/invariants.h are checked (those about draining only for a complete run).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/metrics.h"
#include "sim/time.h"
#include "sim/trace.h"
#include "topology/cluster.h"
#include "workloads/workload_config.h"

namespace moesim::sim {

struct RunLimits {
  std::optional<Duration> max_sim_time;  // none: unbounded
  std::optional<double> max_wall_s;      // none: unbounded
};

// Where a run stands, for progress bars.
struct SimulationProgress {
  std::int64_t now_ns = 0;         // simulated time
  std::int64_t requests_done = 0;  // finished or rejected
  std::int64_t requests_total = 0;
  std::int64_t steps = 0;  // steps started, all instances
};

struct SimulationConfig {
  models::ModelSpec model;
  calibration::HardwareProfile hardware;
  topology::ClusterConfig cluster;                  // the preset built when `fabric` is null
  std::shared_ptr<const topology::Cluster> fabric;  // a custom fabric (topology_yaml.h), or null
  DeploymentConfig deployment;
  workloads::RoutingConfig routing;
  workloads::WorkloadConfig workload;
  SloTargets slo;
  CostConfig cost;  // prices for the run's cost (sim/energy.h)
  calibration::CostModelKind cost_model = calibration::CostModelKind::kFitted;
  std::uint64_t seed = 1;
  std::optional<TraceOptions> trace;  // record op-level events for Perfetto
  RunLimits limits;
  // Called on the simulating thread every kProgressSteps steps (unset: never). It must not
  // change anything the run depends on.
  std::function<void(const SimulationProgress&)> progress;
  static constexpr std::int64_t kProgressSteps = 64;
  // Threads that compute instances' steps (sim/step_workers.h). 1, the default: every step on
  // the simulating thread when it starts. More: a step is computed on a worker while the run
  // goes on with the events before a lower bound of its end (StepModel::prepare), and its end
  // event takes the place it would have had, so the events run in the same order and every
  // output is the same, to the bit, for any count. At most one thread per instance is used
  // (none more with a single instance); traced runs use one thread.
  int threads = 1;
};

struct SimulationResult {
  Summary summary;
  std::vector<RequestRecord> requests;
  std::vector<StepRecord> steps;
  std::vector<PoolResult> pools;  // in deployment order
  std::uint64_t events = 0;
  std::vector<TraceEvent> trace;  // empty unless SimulationConfig::trace
  bool trace_truncated = false;   // the event cap was reached
  bool partial = false;           // a RunLimits bound stopped the run early
  std::string partial_reason;     // e.g. "max-sim-time 10 s reached"; empty unless partial
};

// Throws DeploymentError or topology::TopologyError for a deployment that cannot run.
SimulationResult simulate(const SimulationConfig& config);

}  // namespace moesim::sim
