#include <algorithm>

#include <nlohmann/json.hpp>

#include "tools/link_load.h"
#include "tools/report.h"

namespace moesim::tools {
namespace {

using Json = nlohmann::ordered_json;

Json latency(const sim::LatencyStats& s) {
  return Json{{"count", s.count}, {"mean_s", s.mean_s}, {"p50_s", s.p50_s},
              {"p90_s", s.p90_s}, {"p99_s", s.p99_s},   {"max_s", s.max_s}};
}

// Expert, rank and link loads, summarised (the full matrices are in report.html).
Json load_json(const topology::Cluster& cluster, const sim::PoolResult& p, double seconds) {
  Json j;
  const auto imbalance = expert_imbalance(p.load);
  Json layers = Json::array();
  double worst = 0;
  for (double x : imbalance) {
    layers.push_back(x);
    worst = std::max(worst, x);
  }
  j["expert_max_over_mean"] = worst;
  j["expert_max_over_mean_per_moe_layer"] = layers;
  j["rank_max_over_mean"] = rank_imbalance(p.load);
  const LinkLoadSummary links = summarize_links(cluster, p.load.link_bytes, seconds, 5);
  Json classes = Json::array(), busiest = Json::array();
  for (const auto& c : links.classes)
    classes.push_back({{"class", c.link_class},
                       {"links", c.links},
                       {"bytes", c.bytes},
                       {"mean_utilisation", c.mean_utilisation},
                       {"max_utilisation", c.max_utilisation}});
  for (const auto& l : links.busiest)
    busiest.push_back({{"link", l.name}, {"bytes", l.bytes}, {"utilisation", l.utilisation}});
  j["link_classes"] = classes;
  j["busiest_links"] = busiest;
  return j;
}

Json prefix_cache_json(const sim::PrefixCacheStats& c) {
  return {{"hit_rate", c.hit_rate()},
          {"lookups", c.lookups},
          {"prompt_tokens", c.prompt_tokens},
          {"hit_tokens", c.hit_tokens},
          {"inserted_blocks", c.inserted_blocks},
          {"evicted_blocks", c.evicted_blocks},
          {"resident_blocks", c.resident_blocks},
          {"tiers",
           {{"host_hit_tokens", c.host_hit_tokens},
            {"remote_hit_tokens", c.remote_hit_tokens},
            {"offloaded_blocks", c.offloaded_blocks},
            {"host_loaded_bytes", c.host_loaded_bytes},
            {"remote_loaded_bytes", c.remote_loaded_bytes},
            {"loads", c.loads},
            {"load_wait_s", c.load_wait_s},
            {"host_resident_blocks", c.host_resident_blocks},
            {"remote_resident_blocks", c.remote_resident_blocks}}}};
}

Json energy_json(const sim::EnergySummary& e) {
  return e.known ? Json{{"joules", e.joules},
                        {"mean_power_w_per_gpu", e.mean_power_w_per_gpu},
                        {"joules_per_output_token", e.joules_per_output_token},
                        {"joules_per_request", e.joules_per_request}}
                 : Json(nullptr);
}

Json cost_json(const sim::CostSummary& c) {
  return c.priced ? Json{{"gpu_hours", c.gpu_hours},
                         {"usd", c.usd},
                         {"usd_per_million_output_tokens", c.usd_per_million_output_tokens}}
                  : Json(nullptr);
}

Json pool_json(const models::ModelSpec& model, const topology::Cluster& cluster, const sim::PoolResult& p,
               double seconds) {
  Json j;
  j["role"] = sim::to_string(p.role);
  j["hardware"] = p.hardware;
  j["instances"] = p.instances;
  j["ranks_per_instance"] = p.ranks;
  if (p.afd_attention_ranks > 0) {
    // Attention-FFN disaggregation (sim/afd_step.h): the two sides and how busy each was.
    const auto& b = p.breakdown;
    j["afd"] = {{"attention_ranks", p.afd_attention_ranks},
                {"expert_ranks", p.afd_expert_ranks},
                {"micro_batches", p.afd_micro_batches},
                {"attention_utilisation", p.afd_attention_utilisation},
                {"expert_utilisation", p.afd_expert_utilisation},
                {"exposed_transfer_ms_per_step", p.exposed_comm_ns_per_step * 1e-6},
                {"rows_sent", b.afd_rows_sent},
                {"rows_processed", b.afd_rows_processed},
                {"rows_returned", b.afd_rows_returned}};
  }
  j["steps"] = {{"count", p.steps}, {"mean_ms", p.mean_step_ms}, {"mean_tokens", p.mean_tokens_per_step}};
  // The steady decode state apart from ramp-up and admission steps (sim/metrics.h).
  j["steady_decode"] = {{"steps", p.steady_steps},
                        {"mean_ms", p.steady_step_ms},
                        {"tokens_per_step", p.steady_tokens_per_step},
                        {"tokens_per_gpu_s", p.steady_tokens_per_gpu_s}};
  j["runtime_ms_per_step"] = p.runtime_ns_per_step * 1e-6;
  j["cuda_graph_step_share"] = p.graph_step_share;
  Json per_step;
  for (int i = 0; i < sim::kNumPhases; ++i)
    per_step[sim::phase_name(static_cast<sim::Phase>(i))] = p.phase_ns_per_step[static_cast<std::size_t>(i)] * 1e-6;
  per_step["lm_head"] = p.lm_head_ns_per_step * 1e-6;
  per_step["pipeline_send"] = p.pipeline_send_ns_per_step * 1e-6;
  per_step["draft"] = p.draft_ns_per_step * 1e-6;
  per_step["exposed_comm"] = p.exposed_comm_ns_per_step * 1e-6;
  j["breakdown_ms_per_step"] = per_step;
  Json layers = Json::array();
  const double steps = p.steps > 0 ? static_cast<double>(p.steps) : 1.0;
  const auto& b = p.breakdown;
  for (std::size_t l = 0; l < b.layer_ns.size(); ++l) {
    Json row;
    row["layer"] = l;
    row["moe"] = model.is_moe_layer(static_cast<int>(l));
    for (int i = 0; i < sim::kNumPhases; ++i)
      row[std::string(sim::phase_name(static_cast<sim::Phase>(i))) + "_us"] =
          b.layer_ns[l][static_cast<std::size_t>(i)] / steps * 1e-3;
    row["wall_us"] = b.wall_ns[l] / steps * 1e-3;
    row["exposed_comm_us"] = b.exposed_comm_ns[l] / steps * 1e-3;
    layers.push_back(row);
  }
  j["layers_us_per_step"] = layers;
  const auto& m = p.memory;
  j["memory_per_rank_bytes"] = {{"capacity", m.capacity_bytes},
                                {"weights", m.weight_bytes},
                                {"routed_experts", m.routed_expert_bytes},
                                {"activations", m.activation_bytes},
                                {"comm_buffers", m.comm_buffer_bytes},
                                {"runtime_reserve", m.runtime_reserve_bytes},
                                {"kv_cache", m.kv_bytes},
                                {"kv_capacity_tokens", m.kv_capacity_tokens}};
  j["kv_peak_utilisation"] = p.kv_peak_utilisation;
  j["preemptions"] = p.preemptions;
  j["speculative"] = {{"drafts_proposed", p.drafts_proposed},
                      {"drafts_accepted", p.drafts_accepted},
                      {"acceptance_rate", p.acceptance_rate()}};
  j["communication"] = {{"dispatch_bytes", b.dispatch_bytes},
                        {"combine_bytes", b.combine_bytes},
                        {"token_expert_pairs", b.tokens_routed}};
  j["load"] = load_json(cluster, p, seconds);
  Json caches = Json::array();
  for (const auto& c : p.prefix_caches) caches.push_back(prefix_cache_json(c));
  j["prefix_caches"] = caches;  // per instance (sim/prefix_cache.h); empty without prefix caches
  // The pool's GPUs' share of the run's energy and cost; null as the run's are.
  j["energy"] = energy_json(p.energy);
  j["cost"] = cost_json(p.cost);
  return j;
}

}  // namespace

std::string summary_json(const scenarios::Scenario& scenario, const sim::SimulationResult& result) {
  const auto& s = result.summary;
  Json j;
  j["scenario"] = scenario.name;
  j["seed"] = scenario.seed;
  j["model"] = scenario.model.name;
  j["hardware"] = scenario.hardware.name;
  j["gpus"] = s.gpus;
  // A run stopped by --max-sim-time / --max-wall-time: what had finished by then.
  j["partial"] = result.partial;
  if (result.partial) j["partial_reason"] = result.partial_reason;
  j["requests"] = {
      {"total", s.requests}, {"completed", s.completed}, {"rejected", s.rejected}, {"preempted", s.preempted}};
  j["tokens"] = {{"input", s.input_tokens}, {"output", s.output_tokens}};
  j["makespan_s"] = s.makespan_s;
  j["throughput"] = {{"output_tokens_per_gpu_s", s.output_tokens_per_gpu_s},
                     {"input_tokens_per_gpu_s", s.input_tokens_per_gpu_s}};
  j["latency"] = {
      {"ttft", latency(s.ttft)}, {"tpot", latency(s.tpot)}, {"itl", latency(s.itl)}, {"e2e", latency(s.e2e)}};
  j["slo"] = {{"ttft_p90_s", scenario.slo.ttft_p90_s},
              {"tpot_p90_s", scenario.slo.tpot_p90_s},
              {"attainment", s.slo_attainment},
              {"goodput_requests_per_s", s.goodput_requests_per_s}};
  // Energy and cost (sim/energy.h): null where the hardware gives no power or no price is set.
  j["energy"] = energy_json(s.energy);
  j["cost"] = cost_json(s.cost);
  // The entry pool's prefix caches (sim/prefix_cache.h), summed; null without them.
  j["prefix_cache"] = s.prefix_cache ? prefix_cache_json(*s.prefix_cache) : Json(nullptr);
  Json pools = Json::array();
  const topology::Cluster cluster = scenarios::scenario_cluster(scenario);
  for (const auto& p : result.pools) pools.push_back(pool_json(scenario.model, cluster, p, s.makespan_s));
  j["pools"] = pools;
  j["events"] = result.events;
  return j.dump(2) + "\n";
}

}  // namespace moesim::tools
