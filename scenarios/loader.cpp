#include "scenarios/loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "scenarios/field_reader.h"
#include "scenarios/set_override.h"
#include "scenarios/yaml_tree.h"
#include "sim/overlap.h"
#include "topology/cluster.h"
#include "workloads/arrivals.h"
#include "workloads/routing_model.h"

namespace moesim::scenarios {
namespace {

constexpr std::int64_t kMaxRequests = 100'000'000;

template <typename Entries>
std::vector<std::string_view> names_of(const Entries& entries) {
  std::vector<std::string_view> names;
  for (const auto& e : entries) names.push_back(e.name);
  return names;
}

double positive(const Field& f, double value, std::string_view noun) {
  if (!(value > 0)) f.fail("expected " + std::string(noun) + " > 0, got '" + f.node->scalar + "'");
  return value;
}

void read_cluster(const MapReader& m, const calibration::HardwareProfile& hw, topology::ClusterConfig& c) {
  if (auto f = m.get("preset")) c.preset = as_choice(*f, "cluster preset", names_of(topology::cluster_presets()));
  c.nodes = as_int(m.require("nodes"), 1);
  if (auto f = m.get("devices_per_node")) c.devices_per_node = as_int(*f, 1);
  c.nic_bytes_per_s = hw.nic_bytes_per_s;
  c.scaleup_bytes_per_s = hw.scaleup_bytes_per_s;
  if (auto f = m.get("nic")) c.nic_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f), "a bandwidth");
  if (auto f = m.get("scaleup"))
    c.scaleup_bytes_per_s = positive(*f, as_bandwidth_bytes_per_s(*f), "a bandwidth");
  if (auto f = m.get("scaleup_efficiency")) c.scaleup_efficiency = as_fraction(*f);
  if (auto f = m.get("nic_efficiency")) c.nic_efficiency = as_fraction(*f);
  if (auto f = m.get("scaleup_latency")) c.scaleup_latency_ns = as_duration_ns(*f);
  if (auto f = m.get("nic_latency")) c.nic_latency_ns = as_duration_ns(*f);
}

// The colocated pool, then the checks that tie it to the cluster and the model.
void read_pool(const MapReader& m, const topology::ClusterConfig& cluster, const models::ModelSpec& model,
               sim::PoolConfig& p) {
  const Field ranks = m.require("ranks");
  p.ranks = as_int(ranks, 1);
  if (auto f = m.get("instances")) p.instances = as_int(*f, 1);

  const MapReader attention = m.map("attention", {"dp", "tp"});
  const auto dp = attention.get("dp");
  const auto tp = attention.get("tp");
  p.attention_dp = dp ? as_int(*dp, 1) : p.ranks;
  p.attention_tp = tp ? as_int(*tp, 1) : 1;
  if (p.attention_tp != 1) tp->fail("only tp 1 is modelled so far");

  const MapReader moe = m.map("moe", {"ep"});
  const auto ep = moe.get("ep");
  p.moe_ep = ep ? as_int(*ep, 1) : p.ranks;

  const MapReader overlap = m.map("overlap", {"scheme", "comm_sm_share"});
  if (auto f = overlap.get("scheme")) {
    std::vector<std::string_view> names;
    for (const auto& s : sim::overlap_schemes()) names.push_back(s.name);
    p.overlap.scheme = *sim::parse_overlap_scheme(as_choice(*f, "overlap scheme", names));
  }
  if (auto f = overlap.get("comm_sm_share")) {
    const double share = as_number(*f);
    if (!(share >= 0 && share < 1)) f->fail("expected a fraction in [0, 1), got '" + f->node->scalar + "'");
    p.overlap.comm_sm_share = share;
  }

  const MapReader batch = m.map("batch", {"max_running_per_rank", "token_budget_per_rank", "kv_block_tokens"});
  if (auto f = batch.get("max_running_per_rank")) p.batch.max_running_per_rank = as_int(*f, 1);
  if (auto f = batch.get("token_budget_per_rank")) p.batch.token_budget_per_rank = as_int64(*f, 1);
  if (auto f = batch.get("kv_block_tokens")) p.batch.kv_block_tokens = as_int(*f, 1, 1 << 20);

  const std::int64_t devices = std::int64_t{cluster.nodes} * cluster.devices_per_node;
  if (std::int64_t{p.ranks} * p.instances > devices)
    ranks.fail_at_key(std::to_string(std::int64_t{p.ranks} * p.instances) + " ranks do not fit on a cluster of " +
                      std::to_string(devices) +
                      " devices (" + std::to_string(cluster.nodes) + (cluster.nodes == 1 ? " node x " : " nodes x ") +
                      std::to_string(cluster.devices_per_node) + ")");
  const std::int64_t dp_tp = std::int64_t{p.attention_dp} * p.attention_tp;
  if (dp_tp != p.ranks)
    (dp ? *dp : ranks).fail_at_key("attention dp " + std::to_string(p.attention_dp) + " x tp " +
                                   std::to_string(p.attention_tp) + " = " + std::to_string(dp_tp) +
                                   " does not match ranks " + std::to_string(p.ranks));
  if (p.moe_ep != p.ranks)
    (ep ? *ep : ranks).fail_at_key("ep " + std::to_string(p.moe_ep) + " does not match ranks " +
                                   std::to_string(p.ranks) +
                                   "; only EP over all ranks of the pool is modelled so far");
  if (model.routed_experts > 0 && model.routed_experts % p.moe_ep != 0)
    (ep ? *ep : ranks).fail_at_key(std::to_string(model.routed_experts) +
                                   " routed experts do not divide over ep " + std::to_string(p.moe_ep));
}

void read_lengths(const MapReader& m, workloads::LengthConfig& l) {
  if (auto f = m.get("dist"))
    l.dist = as_choice(*f, "length distribution", names_of(workloads::length_distributions()));
  if (auto f = m.get("value")) l.value = as_int64(*f, 1);
}

void read_workload(const MapReader& m, workloads::WorkloadConfig& w) {
  if (auto f = m.get("requests")) w.requests = as_int64(*f, 1, kMaxRequests);
  const MapReader arrivals = m.map("arrivals", {"process", "rate"});
  if (auto f = arrivals.get("process"))
    w.arrivals.process = as_choice(*f, "arrival process", names_of(workloads::arrival_processes()));
  if (auto f = arrivals.get("rate")) w.arrivals.rate_per_s = positive(*f, as_rate_per_s(*f), "a rate");
  read_lengths(m.map("input_tokens", {"dist", "value"}), w.input_tokens);
  read_lengths(m.map("output_tokens", {"dist", "value"}), w.output_tokens);
}

Scenario build(const YamlNode& root, std::string_view source_name) {
  const MapReader top(root, "",
                      {"name", "seed", "model", "hardware", "cost_model", "cluster", "deployment", "routing", "workload",
                       "slo", "outputs"});
  Scenario s;
  s.source_file = std::string(source_name);
  if (auto f = top.get("name")) {
    s.name = as_string(*f);
  } else {
    s.name = std::filesystem::path(source_name).stem().string();
    if (s.name.empty()) s.name = "scenario";
  }
  if (auto f = top.get("seed")) s.seed = as_uint64(*f);

  s.model = *models::find_model_preset(as_choice(top.require("model"), "model", names_of(models::model_presets())));
  s.hardware = *calibration::find_hardware_preset(
      as_choice(top.require("hardware"), "hardware", names_of(calibration::hardware_presets())));

  if (auto f = top.get("cost_model"))
    s.cost_model = as_choice(*f, "cost model", names_of(calibration::cost_models()));

  read_cluster(top.map("cluster",
                       {"preset", "nodes", "devices_per_node", "nic", "scaleup", "scaleup_efficiency",
                        "nic_efficiency", "scaleup_latency", "nic_latency"},
                       true),
               s.hardware, s.cluster);

  const MapReader deployment = top.map("deployment", {"colocated", "prefill", "decode"}, true);
  const std::vector<std::string_view> pool_keys = {"instances", "ranks", "attention", "moe", "overlap", "batch"};
  const bool has_colocated = deployment.get("colocated").has_value();
  const bool has_prefill = deployment.get("prefill").has_value();
  const bool has_decode = deployment.get("decode").has_value();
  if (has_colocated == (has_prefill || has_decode) || has_prefill != has_decode)
    fail_at(deployment.loc(), "deployment",
            "give either 'colocated', or both 'prefill' and 'decode' (disaggregated)");
  if (has_colocated) {
    read_pool(deployment.map("colocated", pool_keys, true), s.cluster, s.model, s.deployment.colocated);
  } else {
    s.deployment.disaggregated = true;
    read_pool(deployment.map("prefill", pool_keys, true), s.cluster, s.model, s.deployment.prefill);
    read_pool(deployment.map("decode", pool_keys, true), s.cluster, s.model, s.deployment.decode);
    const std::int64_t need = std::int64_t{s.deployment.prefill.ranks} * s.deployment.prefill.instances +
                              std::int64_t{s.deployment.decode.ranks} * s.deployment.decode.instances;
    const std::int64_t devices = std::int64_t{s.cluster.nodes} * s.cluster.devices_per_node;
    if (need > devices)
      fail_at(deployment.loc(), "deployment",
              "the prefill and decode pools need " + std::to_string(need) + " devices; the cluster has " +
                  std::to_string(devices));
  }

  const MapReader routing = top.map("routing", {"model"});
  if (auto f = routing.get("model"))
    s.routing.model = as_choice(*f, "routing model", names_of(workloads::routing_models()));

  read_workload(top.map("workload", {"requests", "arrivals", "input_tokens", "output_tokens"}), s.workload);

  const MapReader slo = top.map("slo", {"ttft_p90", "tpot_p90"});
  if (auto f = slo.get("ttft_p90")) s.slo.ttft_p90_s = as_duration_ns(*f) / 1e9;
  if (auto f = slo.get("tpot_p90")) s.slo.tpot_p90_s = as_duration_ns(*f) / 1e9;

  const MapReader outputs = top.map("outputs", {"requests_csv"});
  if (auto f = outputs.get("requests_csv")) s.outputs.requests_csv = as_bool(*f);
  return s;
}

}  // namespace

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) throw ScenarioError("cannot open scenario file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError("cannot open scenario file '" + path + "'");
  return load_scenario_string(text.str(), path, overrides);
}

Scenario load_scenario_string(std::string_view yaml, std::string_view source_name,
                              const std::vector<std::string>& overrides) {
  YamlNode root = parse_yaml(yaml, std::string(source_name), true);
  if (root.kind != YamlNode::Kind::kMap && root.kind != YamlNode::Kind::kNull)
    fail_at(root.loc, "", "expected a map of scenario keys, got " + describe(root));
  for (const std::string& flag : overrides) apply_override(root, flag);
  return build(root, source_name);
}

}  // namespace moesim::scenarios
