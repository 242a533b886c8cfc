// One pool of `deployment:` -> sim::PoolConfig, with the checks that tie it to the cluster and
// the model (docs/scenario-reference.md, "deployment").
#include <initializer_list>
#include <optional>

#include "models/layer_ops.h"
#include "scenarios/read_sections.h"
#include "sim/deployment_rules.h"
#include "sim/moe_comm.h"
#include "sim/overlap.h"
#include "sim/placement.h"
#include "topology/all_to_all.h"
#include "topology/fidelity.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kPoolKeys = {"instances", "ranks",    "pp",       "attention",
                                                 "moe",       "overlap",  "batch",    "speculative",
                                                 "runtime",   "kv_tiers", "hardware", "afd"};

namespace {

// The field a cross-check should point at: the first of `candidates` the user wrote.
const Field& first_given(std::initializer_list<const std::optional<Field>*> candidates, const Field& fallback) {
  for (const auto* c : candidates)
    if (c->has_value()) return **c;
  return fallback;
}

// A TP degree and the DP/EP degree it pairs with over a stage's ranks (or, with afd, over its
// side's ranks): the other defaults to those ranks / tp. `what` is "attention" or "moe". Whether
// the two cover the ranks is a rule of sim::pool_problem().
void read_degrees(const std::optional<Field>& outer_f, const std::optional<Field>& tp_f, const sim::PoolConfig& p,
                  const char* what, int& outer, int& tp) {
  tp = tp_f ? as_int(*tp_f, 1) : 1;
  const bool attention = std::string_view(what) == "attention";
  const int stage = attention ? p.attention_ranks() : p.expert_ranks();
  // A default needs whole stages and a side with ranks; sim::pool_problem() names what is wrong
  // with those.
  const bool stages_whole = p.pipeline_stages >= 1 && p.ranks % p.pipeline_stages == 0;
  if (!outer_f && stages_whole && stage > 0 && stage % tp != 0)
    tp_f->fail_at_key(std::string(what) + " tp " + std::to_string(tp) + " does not divide " +
                      sim::degree_ranks_text(p, attention));
  outer = outer_f ? as_int(*outer_f, 1) : stage / tp;
}

// The keys of a pool that sim::pool_problem()'s fields map to, where given.
struct PoolKeys {
  const Field* ranks = nullptr;
  std::optional<Field> instances, pp, dp, attention_tp, ep, moe_tp, placement, redundant, rebalance, afd,
      attention_ranks, speculative, method, acceptance, draft_model;
};

// Fails at the key of the field `problem` concerns: the one the user wrote, or the nearest given
// one when the rule is about a default. The speculative lists and models fail at their value.
[[noreturn]] void fail_at_field(const sim::DeploymentProblem& problem, const PoolKeys& k) {
  const auto at = [&](std::initializer_list<const std::optional<Field>*> candidates) -> const Field& {
    return first_given(candidates, *k.ranks);
  };
  using F = sim::PoolField;
  switch (problem.field) {
    case F::kRanks: break;
    case F::kInstances: at({&k.instances}).fail_at_key(problem.message);
    case F::kPipelineStages: at({&k.pp}).fail_at_key(problem.message);
    case F::kAttentionDp: at({&k.dp, &k.attention_tp}).fail_at_key(problem.message);
    case F::kAttentionTp: at({&k.attention_tp}).fail_at_key(problem.message);
    case F::kMoeEp: at({&k.ep, &k.moe_tp}).fail_at_key(problem.message);
    case F::kMoeTp: at({&k.moe_tp}).fail_at_key(problem.message);
    case F::kPlacement: at({&k.placement, &k.redundant, &k.ep}).fail_at_key(problem.message);
    case F::kRedundantExperts: at({&k.redundant, &k.ep}).fail_at_key(problem.message);
    case F::kRebalanceInterval: at({&k.rebalance}).fail_at_key(problem.message);
    case F::kAfd: at({&k.afd}).fail_at_key(problem.message);
    case F::kAfdAttentionRanks: at({&k.attention_ranks, &k.afd}).fail_at_key(problem.message);
    case F::kSpeculative: at({&k.speculative}).fail_at_key(problem.message);
    case F::kSpeculativeMethod: at({&k.method, &k.speculative}).fail_at_key(problem.message);
    case F::kSpeculativeAcceptance:
      if (k.acceptance) k.acceptance->fail(problem.message);
      at({&k.speculative}).fail_at_key(problem.message);
    case F::kSpeculativeDraftModel:
      if (k.draft_model) k.draft_model->fail(problem.message);
      at({&k.speculative}).fail_at_key(problem.message);
  }
  k.ranks->fail_at_key(problem.message);
}

void read_moe(const MapReader& m, sim::PoolConfig& p, PoolKeys& k) {
  k.ep = m.get("ep");
  k.moe_tp = m.get("tp");
  read_degrees(k.ep, k.moe_tp, p, "moe", p.moe_ep, p.moe_tp);
  k.placement = m.get("placement");
  if (k.placement)
    p.placement.policy =
        sim::placement_policy(as_choice(*k.placement, "placement policy", names_of(sim::placement_policies())));
  k.redundant = m.get("redundant_experts");
  if (k.redundant) p.placement.redundant = as_int(*k.redundant, 0);
  if (auto f = m.get("replica_split"))
    p.placement.replica_split = sim::replica_split(as_choice(*f, "replica split", names_of(sim::replica_splits())));
  k.rebalance = m.get("rebalance_interval");
  if (k.rebalance) p.placement.rebalance_interval_s = as_duration_ns(*k.rebalance) / 1e9;
  const auto statistics = m.get("eplb_statistics");
  if (statistics)
    p.placement.statistics =
        sim::eplb_statistics(as_choice(*statistics, "EPLB statistics", names_of(sim::eplb_statistics())));
  const auto window = m.get("eplb_window_steps");
  if (window) p.placement.window_steps = as_int64(*window, 1, 1'000'000);
  if (auto f = m.get("comm"))
    p.comm.all_to_all = sim::find_moe_comm(as_choice(*f, "all-to-all algorithm", names_of(sim::moe_comm_algorithms())));
  if (auto f = m.get("dispatch_payload"))
    p.comm.dispatch_payload =
        models::payload_format(as_choice(*f, "dispatch payload", names_of(models::payload_formats())));
  if (auto f = m.get("fidelity"))
    p.comm.fidelity =
        &topology::find_fidelity(as_choice(*f, "network fidelity", names_of(topology::network_fidelities())));
  if (auto f = m.get("ll_intra_node"))
    p.comm.ll_network_only = as_choice(*f, "intra-node transport", {"scale-up", "network"}) == "network";

  // Statistics the user gave for a placement that never reads them (the pool itself cannot tell
  // a default from a choice).
  for (const auto* f : {&statistics, &window})
    if (*f && !p.placement.eplb())
      (*f)->fail_at_key("EPLB statistics need an eplb placement; placement '" +
                        std::string(sim::to_string(p.placement.policy)) + "' does not depend on load");
}

}  // namespace

void read_pool(const MapReader& m, const ClusterShape& cluster, const models::ModelSpec& model,
               const PathContext& paths, sim::PoolConfig& p) {
  const Field ranks = m.require("ranks");
  PoolKeys k;
  k.ranks = &ranks;
  p.ranks = as_int(ranks, 1);
  k.instances = m.get("instances");
  if (k.instances) p.instances = as_int(*k.instances, 1);
  k.pp = m.get("pp");
  if (k.pp) p.pipeline_stages = as_int(*k.pp, 1);

  k.afd = m.get("afd");
  if (k.afd) {
    const MapReader afd = m.map("afd", {"attention_ranks", "micro_batches"});
    k.attention_ranks = afd.require("attention_ranks");
    p.afd.attention_ranks = as_int(*k.attention_ranks, 0);  // 0: off (a sweep's baseline)
    if (auto f = afd.get("micro_batches")) p.afd.micro_batches = as_int(*f, 1, 64);
  }

  const MapReader attention = m.map("attention", {"dp", "tp"});
  k.dp = attention.get("dp");
  k.attention_tp = attention.get("tp");

  const MapReader moe =
      m.map("moe", {"ep", "tp", "placement", "redundant_experts", "replica_split", "rebalance_interval",
                    "eplb_statistics", "eplb_window_steps", "comm", "dispatch_payload", "fidelity", "ll_intra_node"});

  const MapReader overlap = m.map("overlap", {"scheme", "comm_sm_share"});
  if (auto f = overlap.get("scheme"))
    p.overlap.scheme = *sim::parse_overlap_scheme(as_choice(*f, "overlap scheme", names_of(sim::overlap_schemes())));
  if (auto f = overlap.get("comm_sm_share")) {
    const double share = as_number(*f);
    if (!(share >= 0 && share < 1)) f->fail("expected a fraction in [0, 1), got '" + f->node->scalar + "'");
    p.overlap.comm_sm_share = share;
  }

  const MapReader batch = m.map("batch", {"max_running_per_rank", "token_budget_per_rank", "kv_block_tokens"});
  if (auto f = batch.get("max_running_per_rank")) p.batch.max_running_per_rank = as_int(*f, 1);
  if (auto f = batch.get("token_budget_per_rank")) p.batch.token_budget_per_rank = as_int64(*f, 1);
  if (auto f = batch.get("kv_block_tokens")) p.batch.kv_block_tokens = as_int(*f, 1, 1 << 20);

  if (std::int64_t{p.ranks} * p.instances > cluster.devices)
    ranks.fail_at_key(std::to_string(std::int64_t{p.ranks} * p.instances) + " ranks do not fit on a cluster of " +
                      cluster.text);
  read_degrees(k.dp, k.attention_tp, p, "attention", p.attention_dp, p.attention_tp);
  read_moe(moe, p, k);
  k.speculative = m.get("speculative");
  const MapReader speculative = m.map("speculative", kSpeculativeKeys);
  if (k.speculative) {
    read_speculative(speculative, paths, p);
    k.method = speculative.get("method");
    k.acceptance = speculative.get("acceptance");
    k.draft_model = speculative.get("draft_model");
  }
  p.runtime = read_runtime(m.map("runtime", kRuntimeKeys));

  const MapReader tiers = m.map("kv_tiers", {"host", "host_bandwidth", "remote", "remote_bandwidth"});
  const auto positive = [](const Field& f, double v) {
    if (!(v > 0)) f.fail("expected a value above 0, got '" + f.node->scalar + "'");
    return v;
  };
  const auto host = tiers.get("host");
  if (host) p.kv_tiers.host_bytes = positive(*host, as_bytes(*host));
  if (auto f = tiers.get("host_bandwidth")) p.kv_tiers.host_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f));
  if (auto f = tiers.get("remote")) p.kv_tiers.remote_bytes = positive(*f, as_bytes(*f));
  if (auto f = tiers.get("remote_bandwidth"))
    p.kv_tiers.remote_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f));
  if (host && p.kv_tiers.host_bytes_per_s <= 0)
    fail_at(tiers.loc(), tiers.path(), "a host tier needs host_bandwidth (the host-to-GPU rate per rank, PCIe)");
  if (p.kv_tiers.enabled() && p.role == sim::PoolRole::kDecode)
    fail_at(tiers.loc(), tiers.path(),
            "a decode pool has no prefix cache to offload (give kv_tiers to the prefill pool)");
  if (const auto problem = sim::pool_problem(p, model, cluster.devices_per_node)) fail_at_field(*problem, k);
}

}  // namespace moesim::scenarios
