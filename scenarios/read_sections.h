// The section readers of the scenario loader (loader.cpp drives them in dependency order: model
// and hardware, cluster, deployment, routing, workload). Internal to scenarios/.
//
// Each reader checks its map's keys, converts units, range-checks every value and the
// combinations the library code would reject, and throws ScenarioError at the offending key or
// value (models/yaml_reader.h). Defaults are the config structs' own (or, for the cluster, the preset's
// and the hardware's).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/hardware_profile.h"
#include "models/model_spec.h"
#include "models/registry.h"
#include "models/yaml_reader.h"
#include "sim/deployment_config.h"
#include "sim/runtime.h"
#include "topology/cluster.h"
#include "workloads/registry.h"
#include "workloads/workload_config.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::Field;
using models::MapReader;
using models::YamlNode;

// Where relative file paths resolve: values from the scenario file against the file's folder,
// values from --set flags against the working directory.
struct PathContext {
  std::string source_name;  // the scenario file (origin of its nodes)
  std::filesystem::path base_dir;

  // The field's path, resolved (not checked).
  std::string resolve(const Field& f) const;
  // The same, and fails at the value "cannot open <what> '<path>'" unless it is a readable file.
  std::string existing_file(const Field& f, std::string_view what) const;
};

template <typename Entries>
std::vector<std::string_view> names_of(const Entries& entries) {
  std::vector<std::string_view> names;
  for (const auto& e : entries) names.push_back(e.name);
  return names;
}

// The value of a registry listed in the order of an enum (models/registry.h), named by the
// field: as_choice's errors (position, did-you-mean) for an unknown name.
template <typename Enum>
Enum as_registry_value(const Field& f, std::string_view what, const std::vector<models::RegistryEntry>& entries) {
  return *models::registry_lookup<Enum>(entries, as_choice(f, what, names_of(entries)));
}

// "expected <noun> > 0, got '<text>'" unless value > 0.
double positive(const Field& f, double value, std::string_view noun);
// "0.6", "1e+06": shortest default formatting, for messages.
std::string number_text(double x);
// A number in [lo, hi]: "expected a number in [lo, hi], got <text>".
double as_number_in(const Field& f, double lo, double hi);

// read_sources.cpp: `model:` a preset name, or {preset | file | hf_config, dtypes};
// `hardware:` a preset name, or {preset | file, rank: package | die}.
models::ModelSpec read_model(const Field& f, const PathContext& paths);
struct HardwareSection {
  calibration::HardwareProfile device;  // what one rank runs on: the package, or one of its dies
  int dies_per_package = 1;             // > 1: ranks are dies of packages of this many
  double die_link_bytes_per_s = 0;      // the link joining a package's dies
};
HardwareSection read_hardware(const Field& f, const PathContext& paths);

// What the deployment checks need to know of the cluster.
struct ClusterShape {
  std::int64_t devices = 0;
  int devices_per_node = 1;  // the largest scale-up domain
  std::string text;          // "32 devices (4 nodes x 8)", for messages
};

struct ClusterSection {
  topology::ClusterConfig config;
  std::shared_ptr<const topology::Cluster> fabric;  // {file: ...}; null for a preset
  ClusterShape shape;
};

// read_cluster.cpp: the preset's defaults (hgx, xgmi, hccs and generic take their link
// bandwidths from the hardware), then the user's keys; with a rank per die, nodes and boards
// counted in packages hold dies_per_package times the devices, joined in packages; or {file: fabric.yaml}
// (topology/topology_yaml.h), relative to the scenario's folder, whose errors are reported at the file name with their
// own position.
ClusterSection read_cluster(const MapReader& m, const HardwareSection& hw, const PathContext& paths);
// Whether a preset's links are the device's own ports (hgx, xgmi, hccs, generic), rather than
// the rack's (nvl72, cloudmatrix384): then a pool on hardware of its own brings its ports to its
// nodes (sim::pool_node_groups).
bool preset_takes_device_ports(std::string_view preset);
extern const std::vector<std::string_view> kClusterKeys;

// read_deployment.cpp: one pool, with the checks that tie it to the cluster and the model.
void read_pool(const MapReader& m, const ClusterShape& cluster, const models::ModelSpec& model,
               const PathContext& paths, sim::PoolConfig& p);
extern const std::vector<std::string_view> kPoolKeys;

// read_speculative.cpp: a pool's `speculative:` map (its rules are sim::speculative_problem()'s).
void read_speculative(const MapReader& m, const PathContext& paths, sim::PoolConfig& p);
extern const std::vector<std::string_view> kSpeculativeKeys;

// read_runtime.cpp: a pool's `runtime:` map (an engine preset and its overrides).
sim::RuntimeConfig read_runtime(const MapReader& m);
extern const std::vector<std::string_view> kRuntimeKeys;

// read_routing.cpp
workloads::RoutingConfig read_routing(const MapReader& m, const models::ModelSpec& model, const PathContext& paths);
extern const std::vector<std::string_view> kRoutingKeys;

// read_workload.cpp: `prefix_hit` may be a number (the fixed fraction) or a map.
workloads::WorkloadConfig read_workload(const MapReader& m, const PathContext& paths);
extern const std::vector<std::string_view> kWorkloadKeys;

}  // namespace moesim::scenarios
