// Sweep files (docs/design.md §2, §5; docs/sweeps.md): a base scenario plus the axes to vary, expanded
// into points, each point being the base scenario with `--set`-style overrides, so that every
// point goes through the full scenario validation.
//
//   base: dsv3-h800-32gpu.yaml            # relative to the sweep file
//   sweep: {a.b: [1, 2], c.d: [x, y]}     # cartesian product, the last axis varies fastest
//   zip: [{e.f: [1, 2], g.h: [3, 4]}]     # each group is one axis whose keys vary together
//   derived: {i.j: a.b, k.l: a.b * 2}     # per point: copy a key's value, or a product of integers
//   objective: {maximize: output_tokens_per_gpu_s, subject_to: {tpot_p90: 50ms}}
//
// Axes are ordered: the `sweep:` keys in file order, then the `zip:` groups; point 0 takes the
// first value of every axis. Errors throw ScenarioError "<file>:<line>:<col>: <path>: <what>".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "models/yaml_tree.h"
#include "scenarios/scenario_error.h"

namespace moesim::scenarios {

// A value is kept as one line of flow YAML ("32", "400Gbps", "{preset: hgx, nodes: 2}").
struct SweepParam {
  std::string path;
  std::string value;
  bool operator==(const SweepParam&) const = default;
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<SweepParam> params;  // in sweep_param_paths() order

  std::vector<std::string> overrides() const;  // "path=value", for load_scenario_string
};

struct SweepAxis {
  std::string path;
  std::vector<std::string> values;
  models::SourceLoc loc;  // of the key
};

// `target` gets the value of `factors[0]` (one factor), or the product of the integer factors,
// each a dotted path or an integer literal.
struct SweepDerived {
  std::string target;
  std::vector<std::string> factors;
  models::SourceLoc loc;
};

// A bound on a metric: latencies (in seconds) and other metrics where lower is better are upper
// bounds; throughputs, goodput and SLO attainment are lower bounds.
struct SweepConstraint {
  std::string metric;
  double bound = 0;
};

struct SweepObjective {
  std::string metric = "output_tokens_per_gpu_s";
  bool maximize = true;
  std::vector<SweepConstraint> subject_to;
};

struct SweepSpec {
  std::string source_file;
  std::string base_file;  // resolved against the sweep file's folder
  std::string base_text;
  std::vector<SweepAxis> axes;
  std::vector<std::vector<SweepAxis>> zips;
  std::vector<SweepDerived> derived;
  SweepObjective objective;
};

// Throws ScenarioError "cannot open sweep file '<path>'" when the file cannot be read, and at
// `base:` when the base scenario cannot be.
SweepSpec load_sweep_file(const std::string& path);
SweepSpec load_sweep_string(std::string_view yaml, std::string_view source_name);

// The column order of a point's parameters: the sweep axes, the zip keys, the derived targets.
std::vector<std::string> sweep_param_paths(const SweepSpec& spec);

std::size_t sweep_size(const SweepSpec& spec);

// All points, index order. Throws ScenarioError at a `derived:` entry whose source is not set or
// whose factors are not integers.
std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);

// Fails before anything runs when a swept or derived path is not a scenario key: each is set on
// the base alone and an "unknown key" error is reported at the sweep file's key, e.g.
// "sw.yaml:3:3: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?".
void check_sweep_paths(const SweepSpec& spec);

// One line of flow YAML for a value.
std::string flow_yaml(const models::YamlNode& node);

// The base scenario with the point's overrides applied, as block YAML (comments of the base are
// not kept), preceded by `header` (comment lines). Loads with load_scenario_file.
std::string point_scenario_yaml(const SweepSpec& spec, const SweepPoint& point, std::string_view header);

}  // namespace moesim::scenarios
