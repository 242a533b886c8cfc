// `moesim topo SCENARIO [--dot FILE]`: the scenario's cluster as the simulator builds it (devices,
// switches, links and their bandwidths), and optionally its Graphviz DOT for `dot -Tsvg`.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "scenarios/loader.h"
#include "tools/commands.h"
#include "topology/cluster.h"
#include "topology/graphviz.h"

namespace moesim::tools {
namespace {

struct TopoOptions {
  std::string scenario;
  std::string dot_file;
  std::vector<std::string> overrides;
};

int show_topology(const TopoOptions& o) {
  const scenarios::Scenario s = scenarios::load_scenario_file(o.scenario, o.overrides);
  const topology::Cluster cluster = scenarios::scenario_cluster(s);
  std::cout << topology::summary(cluster) << "\n";
  if (!o.dot_file.empty()) {
    std::ofstream out(o.dot_file);
    if (!out) throw SystemError("cannot write '" + o.dot_file + "'");
    topology::write_dot(cluster, out);
    std::cout << "wrote " << o.dot_file << "\n";
  }
  return 0;
}

}  // namespace

Command add_topo_command(CLI::App& app) {
  auto o = std::make_shared<TopoOptions>();
  auto* cmd = app.add_subcommand("topo", "Summarise a scenario's cluster and optionally write it as Graphviz DOT");
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required();
  cmd->add_option("--dot", o->dot_file, "Write the fabric graph as Graphviz DOT to FILE");
  cmd->add_option("--set", o->overrides, "Override a scenario key: --set a.b.c=value (repeatable)");
  return {cmd, [o] { return show_topology(*o); }};
}

}  // namespace moesim::tools
