// Scenario: one fully typed, validated simulation input (docs/design.md §2, §5).
//
// Produced by scenarios::load_scenario from YAML; every field has been range-checked and every
// unit converted, so the simulator trusts it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/energy.h"
#include "topology/cluster.h"
#include "workloads/workload_config.h"

namespace moesim::scenarios {

struct SloConfig {
  double ttft_p90_s = 0;  // 0: no target
  double tpot_p90_s = 0;  // 0: no target
};

struct OutputsConfig {
  bool requests_csv = true;
  bool report = false;  // report.html with `moesim run` (the --report flag does the same)
};

struct Scenario {
  std::string name;
  std::string source_file;  // where it was loaded from ("" for built in)
  std::uint64_t seed = 1;
  models::ModelSpec model;
  calibration::HardwareProfile hardware;
  calibration::CostModelKind cost_model = calibration::CostModelKind::kFitted;  // calibration::cost_models()
  topology::ClusterConfig cluster;                  // a preset's; for a fabric file, the fabric's own summary figures
  std::shared_ptr<const topology::Cluster> fabric;  // cluster: {file: ...}; null: build the preset
  sim::DeploymentConfig deployment;
  workloads::RoutingConfig routing;
  workloads::WorkloadConfig workload;
  SloConfig slo;
  sim::CostConfig pricing;  // `pricing`: what a GPU-hour and a kWh cost (sim/energy.h)
  OutputsConfig outputs;
};

}  // namespace moesim::scenarios

#include "sim/simulation.h"

namespace moesim::scenarios {

// The simulator's input for a scenario (everything but the SLO and output options).
inline sim::SimulationConfig simulation_config(const Scenario& s) {
  sim::SimulationConfig c;
  c.model = s.model;
  c.hardware = s.hardware;
  c.cluster = s.cluster;
  c.fabric = s.fabric;
  c.deployment = s.deployment;
  c.routing = s.routing;
  c.workload = s.workload;
  c.cost_model = s.cost_model;
  c.slo = {s.slo.ttft_p90_s, s.slo.tpot_p90_s};
  c.cost = s.pricing;
  c.seed = s.seed;
  return c;
}

// The scenario's fabric: the custom one when it names a file, else its preset built.
inline topology::Cluster scenario_cluster(const Scenario& s) {
  return s.fabric ? *s.fabric : topology::Cluster(s.cluster);
}

}  // namespace moesim::scenarios
