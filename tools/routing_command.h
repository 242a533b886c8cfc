// What `moesim routing` computes, apart from its printing, so that the Python package offers the
// same per-layer study with the same flags, defaults and messages (docs/python.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/model_spec.h"
#include "sim/placement.h"
#include "sim/routing_study.h"
#include "workloads/routing_model.h"

namespace moesim::tools {

struct RoutingOptions {
  std::string model = "deepseek-v3";
  workloads::RoutingConfig routing;             // its model and base from the two names below
  std::string routing_model = "uniform";        // --routing (workloads::routing_models())
  std::string base = "uniform";                 // --base
  sim::PlacementConfig placement;               // its policy, split and statistics from the three names below
  std::string placement_policy = "contiguous";  // --placement (sim::placement_policies())
  std::string replica_split = "even";           // --split (sim::replica_splits())
  std::string eplb_statistics = "history";      // --eplb-statistics (sim::eplb_statistics())
  int ep = 0;
  int devices_per_node = 8;
  std::int64_t tokens = 8192;
  int layers = 0;  // 0: all MoE layers
  std::uint64_t seed = 1;
  std::int64_t step = 0;
  std::int64_t steps = 1;
  double capacity_factor = 0;
};

// The command's flags, their defaults and range checks, on `cmd`.
void add_routing_flags(CLI::App& cmd, RoutingOptions& o);

struct RoutingWhatIf {
  models::ModelSpec model;
  workloads::RoutingShape shape;
  std::vector<int> layer;              // the decoder layer of each MoE layer studied
  std::vector<sim::LayerStudy> study;  // per MoE layer studied
};

// Throws UsageError (tools/commands.h) with the command's message for a bad flag value.
RoutingWhatIf routing_what_if(const RoutingOptions& o);

}  // namespace moesim::tools
