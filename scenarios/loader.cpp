#include "scenarios/loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibration/cost_model.h"
#include "scenarios/read_sections.h"
#include "scenarios/reader_errors.h"
#include "scenarios/set_override.h"
#include "sim/deployment.h"
#include "sim/request_router.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::parse_yaml;
namespace {

// A pool's `hardware:` (read_hardware's forms): its own accelerator, ranks counted as the
// scenario's are (a package, or a die of one).
void read_pool_hardware(const MapReader& pool, const HardwareSection& scenario, const PathContext& paths,
                        sim::PoolConfig& p) {
  const auto f = pool.get("hardware");
  if (!f) return;
  const HardwareSection own = read_hardware(*f, paths);
  if (own.dies_per_package != scenario.dies_per_package)
    f->fail(std::string("ranks must be counted alike in every pool: this pool's are ") +
            (own.dies_per_package > 1 ? "dies" : "packages") + ", the scenario's hardware's are " +
            (scenario.dies_per_package > 1 ? "dies" : "packages"));
  if (own.device.name != scenario.device.name)
    p.hardware = std::make_shared<const calibration::HardwareProfile>(own.device);
}

// Pools on hardware of their own: each on whole nodes (a node holds one kind of device), whose
// links take that hardware's ports where the preset is built from the device's ports.
void place_pool_hardware(const MapReader& deployment, Scenario& s, const ClusterSection& cluster) {
  const auto own = [&](const sim::PoolConfig& p) { return p.hardware != nullptr; };
  const sim::DeploymentConfig& d = s.deployment;
  if (!own(d.colocated) && !own(d.prefill) && !own(d.decode)) return;
  if (const auto why = sim::pool_hardware_problem(d, s.hardware, cluster.shape.devices_per_node); !why.empty()) {
    const char* pool = d.disaggregated ? (own(d.decode) ? "decode" : "prefill") : "colocated";
    deployment.map(pool, kPoolKeys, true).require("hardware").fail(why);
  }
  if (!s.fabric && preset_takes_device_ports(s.cluster.preset))
    s.cluster.node_groups = sim::pool_node_groups(d, s.hardware, cluster.shape.devices_per_node);
}

// Every profile the scenario's pools run on, the scenario's own first.
std::vector<const calibration::HardwareProfile*> hardware_used(const Scenario& s) {
  std::vector<const calibration::HardwareProfile*> out{&s.hardware};
  for (const auto& p : s.deployment.pools())
    if (p.hardware) {
      bool seen = false;
      for (const auto* h : out) seen = seen || h->name == p.hardware->name;
      if (!seen) out.push_back(p.hardware.get());
    }
  return out;
}

// `pricing.gpu_hour_usd`: one price, or a map of prices by hardware name: every kind the
// deployment runs on, and any other preset (so `--set deployment.decode.hardware=...` what-ifs
// keep their prices).
void read_gpu_hour_prices(const Field& f, Scenario& s) {
  const auto price = [](const Field& v) {
    const double usd = as_number(v);
    if (!(usd > 0)) v.fail("expected a price above 0, got '" + v.node->scalar + "'");
    return usd;
  };
  if (f.node->kind != YamlNode::Kind::kMap) {
    s.pricing.gpu_hour_usd = price(f);
    return;
  }
  std::vector<std::string_view> names = names_of(calibration::hardware_presets());
  for (const auto* hw : hardware_used(s)) names.push_back(hw->name);
  const MapReader m(*f.node, f.path, names);
  for (const auto& preset : calibration::hardware_presets())
    if (auto v = m.get(preset.name)) price(*v);
  for (const auto* hw : hardware_used(s)) {
    const auto v = m.get(hw->name);
    if (!v) fail_at(f.node->loc, f.path, "no price for hardware '" + hw->name + "', which the deployment runs on");
    s.pricing.gpu_hour_usd_by_hardware.emplace_back(hw->name, price(*v));
  }
}

Scenario build(const YamlNode& root, std::string_view source_name) {
  const MapReader top(root, "",
                      {"name", "seed", "model", "hardware", "cost_model", "cluster", "deployment", "routing",
                       "workload", "slo", "pricing", "outputs"});
  Scenario s;
  s.source_file = std::string(source_name);
  if (auto f = top.get("name")) {
    s.name = as_string(*f);
  } else {
    s.name = std::filesystem::path(source_name).stem().string();
    if (s.name.empty()) s.name = "scenario";
  }
  if (auto f = top.get("seed")) s.seed = as_uint64(*f);

  const PathContext paths{s.source_file, std::filesystem::path(source_name).parent_path()};
  s.model = read_model(top.require("model"), paths);
  const HardwareSection hardware = read_hardware(top.require("hardware"), paths);
  s.hardware = hardware.device;

  if (auto f = top.get("cost_model"))
    s.cost_model = as_registry_value<calibration::CostModelKind>(*f, "cost model", calibration::cost_models());

  const ClusterSection cluster = read_cluster(top.map("cluster", kClusterKeys, true), hardware, paths);
  s.cluster = cluster.config;
  s.fabric = cluster.fabric;

  const MapReader deployment = top.map("deployment", {"colocated", "prefill", "decode", "router"}, true);
  const bool has_colocated = deployment.get("colocated").has_value();
  const bool has_prefill = deployment.get("prefill").has_value();
  const bool has_decode = deployment.get("decode").has_value();
  if (has_colocated == (has_prefill || has_decode) || has_prefill != has_decode)
    fail_at(deployment.loc(), "deployment", "give either 'colocated', or both 'prefill' and 'decode' (disaggregated)");
  if (has_colocated) {
    read_pool(deployment.map("colocated", kPoolKeys, true), cluster.shape, s.model, paths, s.deployment.colocated);
    read_pool_hardware(deployment.map("colocated", kPoolKeys, true), hardware, paths, s.deployment.colocated);
  } else {
    s.deployment.disaggregated = true;
    read_pool(deployment.map("prefill", kPoolKeys, true), cluster.shape, s.model, paths, s.deployment.prefill);
    read_pool(deployment.map("decode", kPoolKeys, true), cluster.shape, s.model, paths, s.deployment.decode);
    read_pool_hardware(deployment.map("prefill", kPoolKeys, true), hardware, paths, s.deployment.prefill);
    read_pool_hardware(deployment.map("decode", kPoolKeys, true), hardware, paths, s.deployment.decode);
    const std::int64_t need = std::int64_t{s.deployment.prefill.ranks} * s.deployment.prefill.instances +
                              std::int64_t{s.deployment.decode.ranks} * s.deployment.decode.instances;
    if (need > cluster.shape.devices)
      fail_at(deployment.loc(), "deployment",
              "the prefill and decode pools need " + std::to_string(need) + " devices; the cluster has " +
                  cluster.shape.text);
  }

  place_pool_hardware(deployment, s, cluster);

  const MapReader router = deployment.map("router", {"policy", "overlap_weight"});
  if (auto f = router.get("policy"))
    s.deployment.router.policy =
        sim::router_policy(std::string(as_choice(*f, "request router policy", names_of(sim::router_policies()))));
  if (auto f = router.get("overlap_weight")) {
    s.deployment.router.overlap_weight = as_number(*f);
    if (!(s.deployment.router.overlap_weight >= 0)) f->fail("expected a weight >= 0, got '" + f->node->scalar + "'");
  }

  s.routing = read_routing(top.map("routing", kRoutingKeys), s.model, paths);
  s.workload = read_workload(top.map("workload", kWorkloadKeys), paths);
  const sim::PoolConfig& entry = s.deployment.disaggregated ? s.deployment.prefill : s.deployment.colocated;
  if (entry.kv_tiers.enabled() && s.workload.prefix_hit.dist != workloads::PrefixHitDist::kCache)
    fail_at(deployment.loc(), std::string("deployment.") + sim::to_string(entry.role) + ".kv_tiers",
            "KV tiers hold prefix-cache blocks: give workload prefix_hit {dist: cache} (sessions, or a trace with "
            "hash_ids)");

  const MapReader slo = top.map("slo", {"ttft_p90", "tpot_p90"});
  if (auto f = slo.get("ttft_p90")) s.slo.ttft_p90_s = as_duration_ns(*f) / 1e9;
  if (auto f = slo.get("tpot_p90")) s.slo.tpot_p90_s = as_duration_ns(*f) / 1e9;

  if (top.get("pricing")) {
    const MapReader pricing = top.map("pricing", {"gpu_hour_usd", "kwh_usd", "pue"});
    const auto positive = [](const Field& f) {
      const double v = as_number(f);
      if (!(v > 0)) f.fail("expected a price above 0, got '" + f.node->scalar + "'");
      return v;
    };
    read_gpu_hour_prices(pricing.require("gpu_hour_usd"), s);
    if (auto f = pricing.get("kwh_usd")) {
      s.pricing.kwh_usd = positive(*f);
      for (const auto* hw : hardware_used(s))
        if (hw->board_power_w <= 0)
          f->fail("hardware '" + hw->name + "' gives no power (its profile's 'power'), so its energy has no price");
    }
    if (auto f = pricing.get("pue")) {
      s.pricing.pue = as_number(*f);
      if (!(s.pricing.pue >= 1.0)) f->fail("expected a power usage effectiveness of at least 1");
    }
  }

  const MapReader outputs = top.map("outputs", {"requests_csv", "report"});
  if (auto f = outputs.get("requests_csv")) s.outputs.requests_csv = as_bool(*f);
  if (auto f = outputs.get("report")) s.outputs.report = as_bool(*f);
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
  return scenario_errors([&] {
    YamlNode root = parse_yaml(yaml, std::string(source_name), true);
    if (root.kind != YamlNode::Kind::kMap && root.kind != YamlNode::Kind::kNull)
      fail_at(root.loc, "", "expected a map of scenario keys, got " + describe(root));
    for (const std::string& flag : overrides) apply_override(root, flag);
    return build(root, source_name);
  });
}

}  // namespace moesim::scenarios
