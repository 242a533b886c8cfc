// The data of a run's report.html (tools/report_html.h); the charts are drawn by
// tools/report_js/run_report.js.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/request_router.h"
#include "tools/link_load.h"
#include "tools/report.h"
#include "tools/report_html.h"

namespace moesim::tools {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kCdfPoints = 1000;  // points drawn per CDF, whatever the request count
constexpr std::size_t kBusiestLinks = 20;

// Four significant digits are what a chart shows; fewer digits keep the page small.
double chart_value(double x) {
  if (x == 0 || !std::isfinite(x)) return 0.0;
  const double scale = std::pow(10.0, 4 - static_cast<int>(std::floor(std::log10(std::fabs(x)))) - 1);
  return std::round(x * scale) / scale;
}

// Empirical CDF of `values` (any unit) at most kCdfPoints points: the k-th smallest value has
// fraction k / n; points are taken at evenly spaced ranks, always including the largest.
Json cdf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  Json x = Json::array(), y = Json::array();
  const std::size_t n = values.size();
  const std::size_t m = std::min(n, kCdfPoints);
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t rank = (i * n + m - 1) / m;  // ceil(i n / m), 1-based
    x.push_back(chart_value(values[rank - 1]));
    y.push_back(static_cast<double>(rank) / static_cast<double>(n));
  }
  return Json{{"x", x}, {"y", y}};
}

Json latency_facts(const char* name, const sim::LatencyStats& s) {
  return Json::array({name, chart_value(s.mean_s * 1e3), chart_value(s.p50_s * 1e3), chart_value(s.p90_s * 1e3),
                      chart_value(s.p99_s * 1e3)});
}

Json layers_json(const sim::PoolResult& p, const models::ModelSpec& model) {
  const auto& b = p.breakdown;
  const double steps = p.steps > 0 ? static_cast<double>(p.steps) : 1.0;
  Json j;
  Json layer = Json::array(), moe = Json::array(), wall = Json::array(), exposed = Json::array();
  Json phases = Json::array(), phase_us = Json::array();
  for (int i = 0; i < sim::kNumPhases; ++i) {
    phases.push_back(sim::phase_name(static_cast<sim::Phase>(i)));
    Json v = Json::array();
    for (const auto& l : b.layer_ns) v.push_back(chart_value(l[static_cast<std::size_t>(i)] / steps * 1e-3));
    phase_us.push_back(v);
  }
  for (std::size_t l = 0; l < b.layer_ns.size(); ++l) {
    layer.push_back(l);
    moe.push_back(model.is_moe_layer(static_cast<int>(l)));
    wall.push_back(chart_value(b.wall_ns[l] / steps * 1e-3));
    exposed.push_back(chart_value(b.exposed_comm_ns[l] / steps * 1e-3));
  }
  j["layer"] = layer;
  j["moe"] = moe;
  j["phases"] = phases;
  j["phase_us"] = phase_us;
  j["wall_us"] = wall;
  j["exposed_comm_us"] = exposed;
  j["lm_head_us"] = chart_value(b.lm_head_ns / steps * 1e-3);
  return j;
}

Json expert_load_json(const sim::PoolResult& p, const models::ModelSpec& model) {
  const auto& load = p.load;
  if (load.moe_layers == 0 || load.experts == 0) return nullptr;
  Json layers = Json::array(), pairs = Json::array();
  for (int l = 0; l < model.num_layers; ++l)
    if (model.is_moe_layer(l)) layers.push_back(l);
  const auto e = static_cast<std::size_t>(load.experts);
  for (int l = 0; l < load.moe_layers; ++l) {
    Json row = Json::array();
    for (std::size_t k = 0; k < e; ++k) row.push_back(load.expert_pairs[static_cast<std::size_t>(l) * e + k]);
    pairs.push_back(row);
  }
  Json imbalance = Json::array();
  for (double x : expert_imbalance(load)) imbalance.push_back(chart_value(x));
  return Json{{"layers", layers},
              {"experts", load.experts},
              {"steps", p.steps},
              {"pairs", pairs},
              {"max_over_mean", imbalance}};
}

Json rank_load_json(const sim::PoolResult& p) {
  const auto& s = p.load.rank_pairs;
  if (s.ranks() == 0 || s.buckets() == 0) return nullptr;
  const auto& steps = p.load.step_starts;
  const int per = std::max(1, p.load.ranks_per_instance);
  Json start = Json::array(), per_step = Json::array(), step_count = Json::array();
  for (int b = 0; b < s.buckets(); ++b)
    start.push_back(chart_value(static_cast<double>(b) * static_cast<double>(s.bucket_ns()) * 1e-6));
  // Pairs per step of the rank's instance in each bucket; null where that instance started none.
  for (int r = 0; r < s.ranks(); ++r) {
    Json row = Json::array(), counts = Json::array();
    for (int b = 0; b < s.buckets(); ++b) {
      const std::int64_t n = b < steps.buckets() ? steps.at(b, r / per) : 0;
      row.push_back(n > 0 ? Json(chart_value(static_cast<double>(s.at(b, r)) / static_cast<double>(n)))
                          : Json(nullptr));
      counts.push_back(n);
    }
    per_step.push_back(row);
    step_count.push_back(counts);
  }
  return Json{{"bucket_ms", chart_value(static_cast<double>(s.bucket_ns()) * 1e-6)},
              {"start_ms", start},
              {"ranks_per_instance", p.load.ranks_per_instance},
              {"pairs_per_step", per_step},
              {"steps", step_count}};
}

Json links_json(const topology::Cluster& cluster, const sim::PoolResult& p, double seconds) {
  if (p.load.link_bytes.empty()) return nullptr;
  const LinkLoadSummary s = summarize_links(cluster, p.load.link_bytes, seconds, kBusiestLinks);
  if (s.classes.empty()) return nullptr;
  Json classes = Json::array(), busiest = Json::array();
  for (const auto& c : s.classes)
    classes.push_back({{"class", c.link_class},
                       {"links", c.links},
                       {"gigabytes", chart_value(c.bytes * 1e-9)},
                       {"mean_utilisation", chart_value(c.mean_utilisation)},
                       {"max_utilisation", chart_value(c.max_utilisation)}});
  for (const auto& l : s.busiest)
    busiest.push_back({{"name", l.name},
                       {"class", l.link_class},
                       {"gigabytes", chart_value(l.bytes * 1e-9)},
                       {"utilisation", chart_value(l.utilisation)}});
  return Json{{"seconds", chart_value(seconds)}, {"classes", classes}, {"busiest", busiest}};
}

// Board power per GPU over time, per pool (sim/energy.h): the steps' power averaged over
// kPowerBuckets equal spans of the run, weighted by how long each step ran in the span, and the
// share of the span the pool's instances spent in steps (the rest at idle power).
Json power_json(const sim::SimulationResult& result, std::size_t pool) {
  constexpr std::size_t kPowerBuckets = 200;
  std::int64_t end = 0;
  for (const auto& st : result.steps) end = std::max(end, st.start_ns + st.duration_ns);
  if (end <= 0) return nullptr;
  const double width = static_cast<double>(end) / kPowerBuckets;
  std::vector<double> joules(kPowerBuckets, 0.0), busy(kPowerBuckets, 0.0);
  for (const auto& st : result.steps) {
    if (static_cast<std::size_t>(st.pool) != pool || st.power_w <= 0) continue;
    const double a = static_cast<double>(st.start_ns), b = a + static_cast<double>(st.duration_ns);
    for (auto i = static_cast<std::size_t>(a / width); i < kPowerBuckets && static_cast<double>(i) * width < b; ++i) {
      const double lo = std::max(a, static_cast<double>(i) * width),
                   hi = std::min(b, static_cast<double>(i + 1) * width);
      if (hi <= lo) continue;
      joules[i] += st.power_w * (hi - lo);
      busy[i] += hi - lo;
    }
  }
  const double instances = std::max(1, result.pools[pool].instances);
  Json t = Json::array(), w = Json::array(), share = Json::array();
  for (std::size_t i = 0; i < kPowerBuckets; ++i) {
    t.push_back(chart_value((static_cast<double>(i) + 0.5) * width * 1e-9));
    w.push_back(busy[i] > 0 ? Json(chart_value(joules[i] / busy[i])) : Json(nullptr));
    share.push_back(chart_value(busy[i] / (width * instances)));
  }
  return Json{{"t_s", t}, {"busy_w", w}, {"busy_share", share}};
}

// Per instance: its prefix caches' hit rate, hit and prompt tokens, evictions (sim/prefix_cache.h);
// null without prefix caches.
Json prefix_caches_json(const sim::PoolResult& p) {
  if (p.prefix_caches.empty()) return nullptr;
  Json rate = Json::array(), hit = Json::array(), prompt = Json::array(), evicted = Json::array();
  for (const auto& c : p.prefix_caches) {
    rate.push_back(chart_value(c.hit_rate()));
    hit.push_back(c.hit_tokens);
    prompt.push_back(c.prompt_tokens);
    evicted.push_back(c.evicted_blocks);
  }
  return Json{{"hit_rate", rate}, {"hit_tokens", hit}, {"prompt_tokens", prompt}, {"evicted_blocks", evicted}};
}

}  // namespace

std::string run_report_html(const scenarios::Scenario& scenario, const sim::SimulationResult& result) {
  const auto& s = result.summary;
  Json data;
  data["kind"] = "run";
  data["scenario"] = scenario.name;
  data["facts"] = Json::array({
      Json::array({"model", scenario.model.name}),
      Json::array({"hardware", hardware_text(scenario)}),
      Json::array({"GPUs", s.gpus}),
      Json::array({"seed", scenario.seed}),
      Json::array({"requests completed / total", std::to_string(s.completed) + " / " + std::to_string(s.requests)}),
      Json::array({"rejected", s.rejected}),
      Json::array({"makespan (s)", chart_value(s.makespan_s)}),
      Json::array({"output tokens/s per GPU", chart_value(s.output_tokens_per_gpu_s)}),
      Json::array({"input tokens/s per GPU", chart_value(s.input_tokens_per_gpu_s)}),
      Json::array({"SLO attainment", chart_value(s.slo_attainment)}),
      Json::array({"goodput (requests/s)", chart_value(s.goodput_requests_per_s)}),
  });
  if (s.energy.known) {
    data["facts"].push_back(Json::array({"energy (kWh)", chart_value(s.energy.joules / 3.6e6)}));
    data["facts"].push_back(Json::array({"mean power per GPU (W)", chart_value(s.energy.mean_power_w_per_gpu)}));
    data["facts"].push_back(
        Json::array({"energy per output token (J)", chart_value(s.energy.joules_per_output_token)}));
  }
  const bool mixed = hardware_text(scenario) != scenario.hardware.name;
  for (const auto& p : result.pools)
    if (mixed && p.energy.known)
      data["facts"].push_back(
          Json::array({std::string(sim::to_string(p.role)) + " pool energy (kWh, " + p.hardware + ")",
                       chart_value(p.energy.joules / 3.6e6)}));
  for (const auto& p : result.pools)
    if (p.afd_attention_ranks > 0) {  // attention-FFN disaggregation: how busy each side was
      const std::string pool = std::string(sim::to_string(p.role)) + " pool ";
      data["facts"].push_back(
          Json::array({pool + "AFD attention : expert ranks",
                       std::to_string(p.afd_attention_ranks) + " : " + std::to_string(p.afd_expert_ranks)}));
      data["facts"].push_back(
          Json::array({pool + "attention side utilisation", chart_value(p.afd_attention_utilisation)}));
      data["facts"].push_back(Json::array({pool + "expert side utilisation", chart_value(p.afd_expert_utilisation)}));
      data["facts"].push_back(
          Json::array({pool + "exposed transfer per step (ms)", chart_value(p.exposed_comm_ns_per_step * 1e-6)}));
    }
  if (s.prefix_cache) {
    data["facts"].push_back(Json::array({"request routing", sim::to_string(scenario.deployment.router.policy)}));
    data["facts"].push_back(Json::array({"prefix-cache hit rate", chart_value(s.prefix_cache->hit_rate())}));
  }
  if (s.cost.priced) {
    data["facts"].push_back(Json::array({"cost (USD)", chart_value(s.cost.usd)}));
    data["facts"].push_back(
        Json::array({"USD per million output tokens", chart_value(s.cost.usd_per_million_output_tokens)}));
  }
  for (const auto& p : result.pools)
    if (mixed && p.cost.priced)
      data["facts"].push_back(Json::array(
          {std::string(sim::to_string(p.role)) + " pool cost (USD, " + p.hardware + ")", chart_value(p.cost.usd)}));
  // The idle line of the power chart: one kind of device's (none when the pools differ).
  data["idle_w"] = s.energy.known && !mixed ? Json(chart_value(scenario.hardware.idle_power_w)) : Json(nullptr);
  data["latency"] = Json::array({latency_facts("TTFT", s.ttft), latency_facts("TPOT", s.tpot),
                                 latency_facts("ITL", s.itl), latency_facts("end-to-end", s.e2e)});
  std::vector<double> ttft_ms, tpot_ms;
  for (const auto& r : result.requests) {
    if (!r.finished()) continue;
    ttft_ms.push_back(static_cast<double>(r.first_token_ns - r.arrival_ns) * 1e-6);
    if (r.output_tokens > 1)
      tpot_ms.push_back(static_cast<double>(r.finish_ns - r.first_token_ns) / static_cast<double>(r.output_tokens - 1) *
                        1e-6);
  }
  data["ttft_cdf_ms"] = cdf(std::move(ttft_ms));
  data["tpot_cdf_ms"] = cdf(std::move(tpot_ms));
  data["slo_ms"] = {{"ttft_p90", scenario.slo.ttft_p90_s * 1e3}, {"tpot_p90", scenario.slo.tpot_p90_s * 1e3}};

  const topology::Cluster cluster = scenarios::scenario_cluster(scenario);
  Json pools = Json::array();
  for (const auto& p : result.pools) {
    Json j;
    j["role"] = sim::to_string(p.role);
    j["instances"] = p.instances;
    j["ranks_per_instance"] = p.ranks;
    j["steps"] = p.steps;
    j["mean_step_ms"] = chart_value(p.mean_step_ms);
    j["layers"] = layers_json(p, scenario.model);
    j["expert_load"] = expert_load_json(p, scenario.model);
    j["rank_load"] = rank_load_json(p);
    j["links"] = links_json(cluster, p, s.makespan_s);
    j["power"] = s.energy.known ? power_json(result, pools.size()) : Json(nullptr);
    j["prefix_caches"] = prefix_caches_json(p);
    pools.push_back(j);
  }
  data["pools"] = pools;
  return report_page("moesim run: " + scenario.name, data.dump(), "run_report.js");
}

}  // namespace moesim::tools
