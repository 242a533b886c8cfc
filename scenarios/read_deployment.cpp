// One pool of `deployment:` -> sim::PoolConfig, with the checks that tie it to the cluster and
// the model (docs/scenario-reference.md, "deployment").
#include <initializer_list>
#include <optional>

#include "models/layer_ops.h"
#include "models/parallel_shard.h"
#include "scenarios/read_sections.h"
#include "sim/afd.h"
#include "sim/deployment_error.h"
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

// "ranks 8", or "ranks 8 per stage (16 / pp 2)" with pipeline stages: what the degrees must cover.
std::string stage_ranks_text(const sim::PoolConfig& p) {
  if (p.pipeline_stages == 1) return "ranks " + std::to_string(p.ranks);
  return "ranks " + std::to_string(p.stage_ranks()) + " per stage (" + std::to_string(p.ranks) + " / pp " +
         std::to_string(p.pipeline_stages) + ")";
}

// What one side of an attention-FFN disaggregated instance must cover: "the 16 attention ranks".
std::string side_text(const sim::PoolConfig& p, bool attention) {
  if (!p.afd.enabled()) return stage_ranks_text(p);
  return attention ? "the " + std::to_string(p.attention_ranks()) + " attention ranks (afd)"
                   : "the " + std::to_string(p.expert_ranks()) + " expert ranks (ranks " + std::to_string(p.ranks) +
                         " - afd attention_ranks " + std::to_string(p.attention_ranks()) + ")";
}

// A TP degree and the DP/EP degree it pairs with over a stage's ranks (or, with afd, over its
// side's ranks): the other defaults to those ranks / tp. `what` is "attention dp" or "moe ep".
void read_degrees(const std::optional<Field>& outer_f, const std::optional<Field>& tp_f, const Field& ranks,
                  const sim::PoolConfig& p, const char* what, int& outer, int& tp) {
  tp = tp_f ? as_int(*tp_f, 1) : 1;
  const bool attention = std::string_view(what) == "attention dp";
  const int stage = attention ? p.attention_ranks() : p.expert_ranks();
  const std::string stage_text = side_text(p, attention);
  if (!outer_f && stage % tp != 0)
    tp_f->fail_at_key(std::string(what).substr(0, std::string(what).find(' ')) + " tp " + std::to_string(tp) +
                      " does not divide " + stage_text);
  outer = outer_f ? as_int(*outer_f, 1) : stage / tp;
  const std::int64_t product = std::int64_t{outer} * tp;
  if (product != stage)
    (outer_f ? *outer_f
     : tp_f  ? *tp_f
             : ranks)
        .fail_at_key(std::string(what) + " " + std::to_string(outer) + " x tp " + std::to_string(tp) + " = " +
                     std::to_string(product) + " does not match " + stage_text);
}

void read_moe(const MapReader& m, const Field& ranks, const ClusterShape& cluster, const models::ModelSpec& model,
              sim::PoolConfig& p) {
  const auto ep = m.get("ep");
  const auto tp = m.get("tp");
  read_degrees(ep, tp, ranks, p, "moe ep", p.moe_ep, p.moe_tp);
  if (const auto why = models::moe_tp_problem(model, p.moe_tp); !why.empty()) tp->fail_at_key(why);
  const std::int64_t shared = std::int64_t{model.moe_intermediate} * model.shared_experts;
  if (p.moe_tp > 1 && shared > 0 && shared % p.stage_ranks() != 0)
    tp->fail_at_key("the shared experts' intermediate size " + std::to_string(shared) + " does not divide over " +
                    stage_ranks_text(p) + " (MoE TP splits it over every rank of the stage)");
  const auto policy = m.get("placement");
  if (policy)
    p.placement.policy =
        sim::placement_policy(as_choice(*policy, "placement policy", names_of(sim::placement_policies())));
  const auto redundant = m.get("redundant_experts");
  if (redundant) p.placement.redundant = as_int(*redundant, 0);
  if (auto f = m.get("replica_split"))
    p.placement.replica_split = sim::replica_split(as_choice(*f, "replica split", names_of(sim::replica_splits())));
  const auto rebalance = m.get("rebalance_interval");
  if (rebalance) p.placement.rebalance_interval_s = as_duration_ns(*rebalance) / 1e9;
  const auto statistics = m.get("eplb_statistics");
  if (statistics)
    p.placement.statistics =
        sim::eplb_statistics(as_choice(*statistics, "EPLB statistics", names_of(sim::eplb_statistics())));
  const auto window = m.get("eplb_window_steps");
  if (window) p.placement.window_steps = as_int64(*window, 1, 1'000'000);
  if (auto f = m.get("comm"))
    p.comm.all_to_all = sim::find_moe_comm(as_choice(*f, "all-to-all algorithm", names_of(sim::moe_comm_algorithms())));
  if (auto f = m.get("dispatch_payload"))
    p.comm.dispatch_payload = as_choice(*f, "dispatch payload", names_of(models::payload_formats()));
  if (auto f = m.get("fidelity"))
    p.comm.fidelity =
        &topology::find_fidelity(as_choice(*f, "network fidelity", names_of(topology::network_fidelities())));
  if (auto f = m.get("ll_intra_node"))
    p.comm.ll_network_only = as_choice(*f, "intra-node transport", {"scale-up", "network"}) == "network";

  const Field& ep_field = ep ? *ep : tp ? *tp : ranks;
  const int experts = model.routed_experts;
  const int extra = p.placement.redundant;
  if (experts == 0) {
    if (extra > 0) redundant->fail_at_key("model '" + model.name + "' has no routed experts");
    return;
  }
  if (extra == 0 && experts % p.moe_ep != 0)
    ep_field.fail_at_key(std::to_string(experts) + " routed experts do not divide over ep " + std::to_string(p.moe_ep));
  if ((experts + extra) % p.moe_ep != 0)
    redundant->fail_at_key(std::to_string(experts + extra) + " expert slots (" + std::to_string(experts) + " + " +
                           std::to_string(extra) + " redundant) do not divide over ep " + std::to_string(p.moe_ep));
  const bool eplb = p.placement.eplb();
  for (const auto* f : {&statistics, &window})
    if (*f && !eplb)
      (*f)->fail_at_key("EPLB statistics need an eplb placement; placement '" +
                        std::string(sim::to_string(p.placement.policy)) + "' does not depend on load");
  if (rebalance && p.placement.rebalance_interval_s > 0 && !eplb)
    rebalance->fail_at_key("rebalancing needs an eplb placement; placement '" +
                           std::string(sim::to_string(p.placement.policy)) + "' does not depend on load");
  if (rebalance && p.placement.rebalance_interval_s > 0 && p.pipeline_stages > 1)
    rebalance->fail_at_key("EPLB rebalancing is not modelled with pipeline stages (pp " +
                           std::to_string(p.pipeline_stages) + ")");

  sim::PlacementShape shape;
  shape.experts = experts;
  shape.ep = p.moe_ep;
  shape.redundant = extra;
  shape.devices_per_node = cluster.devices_per_node;
  shape.expert_groups = model.expert_groups;
  try {
    sim::validate_placement(p.placement, shape);
  } catch (const sim::DeploymentError& e) {
    // Redundant slots with a policy that has none: the redundant count is what to change.
    const bool redundant_wrong = extra > 0 && !eplb;
    (redundant_wrong ? *redundant : first_given({&policy, &redundant, &ep}, ranks)).fail_at_key(e.what());
  }
}

}  // namespace

void read_pool(const MapReader& m, const ClusterShape& cluster, const models::ModelSpec& model,
               const PathContext& paths, sim::PoolConfig& p) {
  const Field ranks = m.require("ranks");
  p.ranks = as_int(ranks, 1);
  if (auto f = m.get("instances")) p.instances = as_int(*f, 1);
  if (auto f = m.get("pp")) {
    p.pipeline_stages = as_int(*f, 1);
    if (p.ranks % p.pipeline_stages != 0)
      f->fail_at_key(std::to_string(p.ranks) + " ranks do not split into pp " + std::to_string(p.pipeline_stages) +
                     " stages");
    if (p.pipeline_stages > model.num_layers)
      f->fail_at_key("pp " + std::to_string(p.pipeline_stages) + " exceeds the " + std::to_string(model.num_layers) +
                     " layers of " + model.name);
  }

  const auto afd_field = m.get("afd");
  if (afd_field) {
    const MapReader afd = m.map("afd", {"attention_ranks", "micro_batches"});
    const Field attention_ranks = afd.require("attention_ranks");
    p.afd.attention_ranks = as_int(attention_ranks, 0);  // 0: off (a sweep's baseline)
    if (auto f = afd.get("micro_batches")) p.afd.micro_batches = as_int(*f, 1, 64);
    if (const auto why = sim::afd_split_problem(p); !why.empty()) attention_ranks.fail_at_key(why);
  }

  const MapReader attention = m.map("attention", {"dp", "tp"});
  const auto dp = attention.get("dp");
  const auto tp = attention.get("tp");

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
  read_degrees(dp, tp, ranks, p, "attention dp", p.attention_dp, p.attention_tp);
  if (const auto why = models::attention_tp_problem(model, p.attention_tp); !why.empty()) tp->fail_at_key(why);
  read_moe(moe, ranks, cluster, model, p);
  if (auto f = m.get("speculative")) read_speculative(m.map("speculative", kSpeculativeKeys), *f, model, paths, p);
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
  if (afd_field && p.afd.enabled())
    if (const auto why = sim::afd_problem(p, model); !why.empty()) afd_field->fail_at_key(why);
}

}  // namespace moesim::scenarios
