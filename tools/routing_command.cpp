// `moesim routing`: a routing-level what-if. Draws `--steps` steps of routing counts for
// `--tokens` tokens spread evenly over the EP ranks, places the experts (EPLB from the popularity
// of the window of steps before them, as deployed, or with --eplb-statistics oracle from the first
// measured step's) and prints each MoE layer's imbalance averaged over the steps.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "models/presets.h"
#include "sim/deployment_error.h"
#include "sim/placement.h"
#include "sim/routing_study.h"
#include "tools/commands.h"
#include "tools/routing_command.h"
#include "workloads/routing_model.h"
#include "workloads/workload_error.h"

namespace moesim::tools {
namespace {

int run_routing(const RoutingOptions& o) {
  const RoutingWhatIf w = routing_what_if(o);
  const models::ModelSpec& model = w.model;
  const workloads::RoutingShape& shape = w.shape;
  const std::vector<sim::LayerStudy>& result = w.study;
  std::printf(
      "%s: %d routed experts, top-%d, %d MoE layers; routing %s; placement %s (%d redundant, %s split, "
      "%s statistics) on EP %d\n",
      model.name.c_str(), shape.experts, shape.top_k, shape.moe_layers, o.routing_model.c_str(),
      o.placement_policy.c_str(), o.placement.redundant, o.replica_split.c_str(), o.eplb_statistics.c_str(), o.ep);
  std::printf("%lld tokens (%lld per rank), steps %lld..%lld, seed %llu%s\n\n", static_cast<long long>(o.tokens),
              static_cast<long long>(o.tokens / o.ep), static_cast<long long>(o.step),
              static_cast<long long>(o.step + o.steps - 1), static_cast<unsigned long long>(o.seed),
              o.capacity_factor > 0 ? (", capacity factor " + std::to_string(o.capacity_factor)).c_str() : "");
  std::printf("%5s %6s %10s %10s %8s %8s %8s %14s %9s\n", "layer", "moe", "rank_imb", "slot_imb", "rank_cv", "slot_cv",
              "hot_rank", "hottest_expert", "dropped");
  double sum_rank = 0, sum_slot = 0, sum_rank_cv = 0, sum_slot_cv = 0, worst = 0;
  std::int64_t dropped = 0;
  const int layers = static_cast<int>(result.size());
  for (int l = 0; l < layers; ++l) {
    const sim::ImbalanceStats& mean = result[static_cast<std::size_t>(l)].mean;
    const sim::ImbalanceStats& st = result[static_cast<std::size_t>(l)].last;
    const int layer = w.layer[static_cast<std::size_t>(l)];
    std::printf("%5d %6d %10.3f %10.3f %8.3f %8.3f %8d %6d (%4.1f%%) %9lld\n", layer, l, mean.rank_imbalance,
                mean.slot_imbalance, mean.rank_cv, mean.slot_cv, st.hottest_rank, st.hottest_expert,
                100 * st.hottest_expert_share, static_cast<long long>(mean.dropped));
    sum_rank += mean.rank_imbalance;
    sum_slot += mean.slot_imbalance;
    sum_rank_cv += mean.rank_cv;
    sum_slot_cv += mean.slot_cv;
    worst = std::max(worst, mean.rank_imbalance);
    dropped += mean.dropped;
  }
  if (layers > 0)
    std::printf(
        "\nmean rank imbalance %.3f (worst layer %.3f), mean slot imbalance %.3f, mean rank cv %.3f, "
        "mean slot cv %.3f, dropped %lld pairs\n",
        sum_rank / layers, worst, sum_slot / layers, sum_rank_cv / layers, sum_slot_cv / layers,
        static_cast<long long>(dropped));
  std::printf("imbalance = (max - mean) / mean of pairs received; rank = EP rank, slot = physical expert copy\n");
  return 0;
}

}  // namespace

RoutingWhatIf routing_what_if(const RoutingOptions& o) {
  const auto model = models::find_model_preset(o.model);
  if (!model) {
    std::string valid;
    for (const auto& p : models::model_presets()) valid += (valid.empty() ? "" : ", ") + std::string(p.name);
    throw UsageError("unknown model '" + o.model + "' (valid: " + valid + ")");
  }
  if (model->routed_experts <= 0) throw UsageError(o.model + " is a dense model: nothing to route");
  const auto shape = workloads::routing_shape(*model);
  sim::RoutingStudy study;
  study.ep = o.ep;
  study.devices_per_node = o.devices_per_node;
  study.tokens = o.tokens;
  study.layers = o.layers;
  study.first_step = o.step;
  study.steps = o.steps;
  study.seed = o.seed;
  study.capacity_factor = o.capacity_factor;
  study.placement = o.placement;
  workloads::RoutingConfig config = o.routing;
  const auto kinds = workloads::routing_models();
  config.model = flag_value<workloads::RoutingModelKind>("--routing", "routing model", kinds, o.routing_model);
  config.base = flag_value<workloads::RoutingModelKind>("--base", "routing model", kinds, o.base);
  RoutingWhatIf w{*model, shape, {}, {}};
  std::unique_ptr<workloads::RoutingModel> routing;
  try {  // the routing and placement flags are usage errors (exit 2) when they do not fit
    study.placement.policy = sim::placement_policy(o.placement_policy);
    study.placement.replica_split = sim::replica_split(o.replica_split);
    study.placement.statistics = sim::eplb_statistics(o.eplb_statistics);
    routing = workloads::make_routing_model(config, shape, workloads::splitmix64(o.seed));
    w.study = sim::study_routing(*routing, shape, study);
  } catch (const workloads::WorkloadError& e) {
    throw UsageError(e.what());
  } catch (const sim::DeploymentError& e) {
    throw UsageError(e.what());
  }
  for (std::size_t l = 0; l < w.study.size(); ++l)
    w.layer.push_back(model->first_k_dense + static_cast<int>(l) * model->moe_every);
  return w;
}

void add_routing_flags(CLI::App& cmd, RoutingOptions& o) {
  cmd.add_option("--model", o.model, "Model preset (default deepseek-v3)");
  cmd.add_option("--routing", o.routing_model,
                 "Routing model: uniform, zipf, hot-set, dirichlet-drift, layered-lognormal, group-limited, trace");
  cmd.add_option("--s", o.routing.s, "zipf exponent");
  cmd.add_option("--hot-experts", o.routing.hot_experts, "hot-set: experts in the hot set");
  cmd.add_option("--hot-fraction", o.routing.hot_fraction, "hot-set: fraction of assignments to the hot set");
  cmd.add_option("--alpha", o.routing.alpha, "dirichlet-drift: Dirichlet concentration");
  cmd.add_option("--drift-rho", o.routing.drift_rho, "dirichlet-drift: AR(1) coefficient");
  cmd.add_option("--drift-sigma", o.routing.drift_sigma, "dirichlet-drift: stationary logit std");
  cmd.add_option("--base", o.base, "group-limited: base popularity model");
  cmd.add_option("--trace", o.routing.trace_path, "trace: routing-trace file");
  cmd.add_flag("--group-limited", o.routing.group_limit.enabled,
               "Limit each token to top-groups of the model's groups");
  cmd.add_option("--groups", o.routing.group_limit.groups, "Expert groups (default: the model's)");
  cmd.add_option("--top-groups", o.routing.group_limit.top_groups, "Groups per token (default: the model's)");
  cmd.add_option("--placement", o.placement_policy, "contiguous, striped, eplb, eplb-hierarchical");
  cmd.add_option("--redundant", o.placement.redundant, "Redundant expert slots per layer (eplb)")
      ->check(CLI::Range(0, 1 << 16));
  cmd.add_option("--split", o.replica_split, "Replica split: even or local");
  cmd.add_option("--ep", o.ep, "EP ranks")->required()->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--devices-per-node", o.devices_per_node, "Ranks per node (default 8)")->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--tokens", o.tokens, "Tokens in the step, spread evenly over the ranks (default 8192)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 32));
  cmd.add_option("--layers", o.layers, "Print only the first N MoE layers")->check(CLI::Range(1, 1 << 16));
  cmd.add_option("--seed", o.seed, "Random seed (default 1)");
  cmd.add_option("--step", o.step, "First forward step measured (drifting and trace models)");
  cmd.add_option("--steps", o.steps, "Steps measured; each layer's statistics are averaged over them (default 1)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  cmd.add_option("--eplb-statistics", o.eplb_statistics,
                 "What EPLB places from: history (the steps before, as deployed) or oracle (the measured step)");
  cmd.add_option("--eplb-window", o.placement.window_steps, "history: steps of statistics (default 100)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  cmd.add_option("--layer-sigma", o.routing.layer_sigma, "layered-lognormal: median per-layer log-popularity std");
  cmd.add_option("--layer-sigma-spread", o.routing.layer_sigma_spread, "layered-lognormal: spread of it over layers");
  cmd.add_option("--step-sigma", o.routing.step_sigma, "layered-lognormal: std of the drifting log-popularity");
  cmd.add_option("--step-memory", o.routing.step_memory, "layered-lognormal: drift correlation time in steps");
  cmd.add_option("--capacity-factor", o.capacity_factor, "Per-slot capacity factor; excess pairs are dropped");
}

Command add_routing_command(CLI::App& app) {
  auto o = std::make_shared<RoutingOptions>();
  auto* cmd = app.add_subcommand("routing", "Routing what-if: per-layer expert-load imbalance under a placement");
  add_routing_flags(*cmd, *o);
  return {cmd, [o] { return run_routing(*o); }};
}

}  // namespace moesim::tools
