// `routing:` -> workloads::RoutingConfig (docs/scenario-reference.md, "routing").
//
// Every parameter is range-checked whichever model is chosen (so a sweep may switch models with
// the others' parameters present); what the chosen model needs (a trace file, a group limit that
// splits the experts) is checked for it.
#include <cstddef>
#include <vector>

#include "scenarios/read_sections.h"
#include "workloads/binomial.h"
#include "workloads/routing_model.h"
#include "workloads/workload_error.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kRoutingKeys = {
    "model",       "s",           "hot_experts",          "hot_fraction", "alpha",
    "drift_rho",   "drift_sigma", "drift_interval_steps", "layer_sigma",  "layer_sigma_spread",
    "step_sigma",  "step_memory", "step_interval",        "base",         "trace_path",
    "group_limit", "counts",      "reuse_draws",          "share_draws"};

namespace {

void read_group_limit(const MapReader& routing, const models::ModelSpec& model, workloads::RoutingConfig& r) {
  const auto given = routing.get("group_limit");
  const MapReader m = routing.map("group_limit", {"enabled", "groups", "top_groups"});
  // Writing group_limit turns it on unless it says enabled: false.
  r.group_limit.enabled = given.has_value();
  if (auto f = m.get("enabled")) r.group_limit.enabled = as_bool(*f);
  const auto groups = m.get("groups");
  const auto top = m.get("top_groups");
  if (groups) r.group_limit.groups = as_int(*groups, 1);
  if (top) r.group_limit.top_groups = as_int(*top, 1);
  if (!r.group_limit.enabled && r.model != workloads::RoutingModelKind::kGroupLimited) return;

  // 0 means "the model's own": resolve it so the scenario states what will run.
  const workloads::RoutingShape shape = workloads::routing_shape(model);
  auto& g = r.group_limit;
  if (g.groups == 0) g.groups = shape.expert_groups;
  if (g.top_groups == 0) g.top_groups = shape.top_groups;
  if (model.routed_experts > 0 && model.routed_experts % g.groups != 0) {
    const std::string msg = std::to_string(model.routed_experts) + " routed experts do not split into " +
                            std::to_string(g.groups) + " equal groups";
    if (groups) groups->fail(msg);
    fail_at(m.loc(), m.path(), msg + " (groups defaults to the model's expert_groups)");
  }
  if (g.top_groups > g.groups) {
    const std::string msg =
        "top_groups " + std::to_string(g.top_groups) + " exceeds groups " + std::to_string(g.groups);
    if (top) top->fail(msg);
    groups->fail(msg + " (top_groups defaults to the model's)");
  }
}

}  // namespace

workloads::RoutingConfig read_routing(const MapReader& m, const models::ModelSpec& model, const PathContext& paths) {
  workloads::RoutingConfig r;
  using workloads::RoutingModelKind;
  const std::vector<workloads::RegistryEntry> kinds = workloads::routing_models();
  if (auto f = m.get("model")) r.model = as_registry_value<RoutingModelKind>(*f, "routing model", kinds);
  if (auto f = m.get("s")) r.s = as_number_in(*f, 0, 10);
  if (auto f = m.get("hot_experts")) {
    const int experts = model.routed_experts;
    r.hot_experts = experts > 0 ? as_int(*f, 1, experts) : as_int(*f, 1);
  }
  if (auto f = m.get("hot_fraction")) r.hot_fraction = as_number_in(*f, 0, 1);
  if (auto f = m.get("alpha")) r.alpha = positive(*f, as_number(*f), "a number");
  if (auto f = m.get("drift_rho")) r.drift_rho = as_number_in(*f, 0, 1);
  if (auto f = m.get("drift_sigma")) r.drift_sigma = as_number_in(*f, 0, 20);
  if (auto f = m.get("drift_interval_steps")) r.drift_interval_steps = as_int64(*f, 1);
  if (auto f = m.get("layer_sigma")) r.layer_sigma = as_number_in(*f, 0, 10);
  if (auto f = m.get("layer_sigma_spread")) r.layer_sigma_spread = as_number_in(*f, 0, 5);
  if (auto f = m.get("step_sigma")) r.step_sigma = as_number_in(*f, 0, 10);
  if (auto f = m.get("step_memory")) r.step_memory = as_int64(*f, 1);
  if (auto f = m.get("step_interval")) r.step_interval = as_int64(*f, 1);
  if (auto f = m.get("base")) {
    // Any model but group-limited itself.
    std::vector<std::string_view> bases = names_of(kinds);
    bases.erase(bases.begin() + static_cast<std::ptrdiff_t>(RoutingModelKind::kGroupLimited));
    r.base = *models::registry_lookup<RoutingModelKind>(kinds, as_choice(*f, "base routing model", bases));
  }
  if (auto f = m.get("counts"))
    r.counts = as_registry_value<workloads::CountMethod>(*f, "count method", workloads::count_methods());
  if (auto f = m.get("reuse_draws")) r.reuse_draws = as_int(*f, 0, workloads::kMaxReuseDraws);
  if (auto f = m.get("share_draws")) r.share_draws = as_bool(*f);
  const auto trace = m.get("trace_path");
  if (trace) r.trace_path = paths.existing_file(*trace, "routing trace");
  const bool group_model = r.model == RoutingModelKind::kGroupLimited;
  const bool trace_model = (group_model ? r.base : r.model) == RoutingModelKind::kTrace;
  if (trace_model && !trace) fail_at(m.loc(), m.path(), "routing model 'trace' needs trace_path");
  read_group_limit(m, model, r);

  // What the loader checks should be all the routing code rejects; confirm it for the models
  // that need no file (a trace is read when the simulation starts).
  if (model.routed_experts > 0 && !trace_model) {
    try {
      workloads::make_routing_model(r, workloads::routing_shape(model), 0);
    } catch (const workloads::WorkloadError& e) {
      fail_at(m.loc(), m.path(), e.what());
    }
  }
  return r;
}

}  // namespace moesim::scenarios
