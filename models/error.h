// Error: the one base of every exception that crosses a boundary of the project (docs/design.md
// §6). Each folder throws its own type (scenarios::ScenarioError, models::ModelError, ...), and
// each of those is an Error that says which kind it is; tools/main.cpp catches Error once and turns
// the kind into an exit code and the printed line.
//
// what() is one complete line, as each type documents; position() is where the problem is when the
// thrower knew it on its own ("scn.yaml:12:7", "trace.csv:40", "sim/kv_cache.cpp:88"), empty
// otherwise. The position is already part of what(); it is kept apart for callers that want it
// without parsing the message.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace moesim::models {

enum class ErrorKind {
  kUsage,        // a command-line flag that does not fit (tools::UsageError)
  kScenario,     // a scenario or sweep file (scenarios::ScenarioError)
  kModel,        // a model file, config.json, routing trace or checkpoint (models::ModelError)
  kYaml,         // the YAML reader, before a boundary rethrows it as its own (models::YamlError)
  kUnit,         // a value with a unit (models::UnitError)
  kHardware,     // a hardware profile (calibration::HardwareError)
  kCalibration,  // calibration data, capture and fitting (calibration::CalibrationError)
  kWorkload,     // arrivals, lengths, trace replay, routing models (workloads::WorkloadError)
  kDeployment,   // pools, instances, placement (sim::DeploymentError)
  kTopology,     // the cluster and its fabric (topology::TopologyError)
  kKernel,       // a measurement kernel that cannot run (kernels::KernelError)
  kSystem,       // the machine refused: a file that cannot be written, an MPI call that failed
  kInvariant,    // a broken internal invariant: a bug, not bad input (sim::InvariantError)
};

// "usage", "scenario", ..., "invariant".
constexpr std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUsage: return "usage";
    case ErrorKind::kScenario: return "scenario";
    case ErrorKind::kModel: return "model";
    case ErrorKind::kYaml: return "yaml";
    case ErrorKind::kUnit: return "unit";
    case ErrorKind::kHardware: return "hardware";
    case ErrorKind::kCalibration: return "calibration";
    case ErrorKind::kWorkload: return "workload";
    case ErrorKind::kDeployment: return "deployment";
    case ErrorKind::kTopology: return "topology";
    case ErrorKind::kKernel: return "kernel";
    case ErrorKind::kSystem: return "system";
    case ErrorKind::kInvariant: return "invariant";
  }
  return "error";
}

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what, std::string position = {})
      : std::runtime_error(what), kind_(kind), position_(std::move(position)) {}

  ErrorKind kind() const noexcept { return kind_; }
  const std::string& position() const noexcept { return position_; }

 private:
  ErrorKind kind_;
  std::string position_;
};

}  // namespace moesim::models
