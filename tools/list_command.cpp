#include <cstdio>
#include <string_view>

#include "calibration/capture.h"
#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "sim/overlap.h"
#include "sim/placement.h"
#include "tools/commands.h"
#include "topology/all_to_all.h"
#include "topology/cluster.h"
#include "topology/collectives.h"
#include "topology/fidelity.h"
#include "workloads/arrivals.h"
#include "workloads/binomial.h"
#include "workloads/prefix_hit.h"
#include "workloads/routing_model.h"

namespace moesim::tools {
namespace {

void heading(const char* title) { std::printf("%s:\n", title); }
void item(std::string_view name, std::string_view description) {
  std::printf("  %-16.*s %.*s\n", static_cast<int>(name.size()), name.data(), static_cast<int>(description.size()),
              description.data());
}

int list_registries() {
  heading("models");
  for (const auto& m : models::model_presets()) item(m.name, m.description);
  heading("hardware");
  for (const auto& h : calibration::hardware_presets()) item(h.name, h.description);
  heading("cluster presets");
  for (const auto& c : topology::cluster_presets()) item(c.name, c.description);
  heading("overlap schemes");
  for (const auto& o : sim::overlap_schemes()) item(o.name, o.description);
  heading("cost models");
  for (const auto& c : calibration::cost_models()) item(c.name, c.description);
  heading("routing models");
  for (const auto& r : workloads::routing_models()) item(r.name, r.description);
  heading("routing count methods");
  for (const auto& c : workloads::count_methods()) item(c.name, c.description);
  heading("arrival processes");
  for (const auto& a : workloads::arrival_processes()) item(a.name, a.description);
  heading("length distributions");
  for (const auto& l : workloads::length_distributions()) item(l.name, l.description);
  heading("prefix-hit distributions");
  for (const auto& p : workloads::prefix_hit_distributions()) item(p.name, p.description);
  heading("expert placement policies");
  for (const auto& p : sim::placement_policies()) item(p.name, p.description);
  heading("replica splits");
  for (const auto& p : sim::replica_splits()) item(p.name, p.description);
  heading("all-to-all algorithms");
  for (const auto& a : topology::all_to_all_algorithms()) item(a.name, a.description);
  heading("collective algorithms");
  for (const auto& a : topology::collective_algorithms()) item(a.name, a.description);
  heading("network fidelities");
  for (const auto& f : topology::network_fidelities()) item(f.name, f.description);
  heading("calibration backends");
  for (const auto& b : calibration::capture_backends()) item(b.name, b.description);
  heading("calibration suites");
  for (const auto& c : calibration::capture_suites()) item(c.name, c.description);
  return 0;
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List presets and every registry of pluggable models");
  return {cmd, [] { return list_registries(); }};
}

}  // namespace moesim::tools
