#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "sim/request_router.h"
#include "sim/speculative.h"
#include "tools/report.h"

namespace moesim::tools {
namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string latency_row(const char* name, const sim::LatencyStats& s, double scale, const char* unit) {
  return fmt("  %-6s %10.2f %10.2f %10.2f %10.2f  %s\n", name, s.mean_s * scale, s.p50_s * scale, s.p90_s * scale,
             s.p99_s * scale, unit);
}

std::string pool_line(const sim::PoolConfig& p) {
  std::string degrees = fmt("attention DP %d", p.attention_dp);
  if (p.attention_tp > 1) degrees += fmt(" x TP %d", p.attention_tp);
  degrees += fmt(", EP %d", p.moe_ep);
  if (p.moe_tp > 1) degrees += fmt(" x MoE TP %d", p.moe_tp);
  if (p.pipeline_stages > 1) degrees += fmt(", PP %d", p.pipeline_stages);
  std::string line = fmt("%s pool: %d instance%s x %d ranks, %s, batch <= %d/rank, budget %lld tokens/rank, overlap %s",
                         sim::to_string(p.role), p.instances, p.instances == 1 ? "" : "s", p.ranks, degrees.c_str(),
                         p.batch.max_running_per_rank, static_cast<long long>(p.batch.token_budget_per_rank),
                         std::string(sim::to_string(p.overlap.scheme)).c_str());
  if (p.speculative.enabled())
    line += fmt(", speculative %s x %d (%.2f tokens/step expected)", sim::to_string(p.speculative.method),
                p.speculative.tokens, sim::expected_emitted_tokens(p.speculative));
  if (p.hardware) line += ", on " + p.hardware->name;
  return line;
}

// "48 x h800", or with pools on hardware of their own "16 x h800 (prefill) + 32 x h20 (decode)".
std::string gpus_text(const scenarios::Scenario& sc, int gpus) {
  if (hardware_text(sc) == sc.hardware.name) return fmt("%d x %s", gpus, sc.hardware.name.c_str());
  std::string text;
  for (const auto& p : sc.deployment.pools())
    text += (text.empty() ? "" : " + ") + fmt("%d x %s (%s)", p.instances * p.ranks,
                                              sim::pool_hardware(p, sc.hardware).name.c_str(), sim::to_string(p.role));
  return text;
}

}  // namespace

std::string hardware_text(const scenarios::Scenario& sc) {
  const auto pools = sc.deployment.pools();
  bool mixed = false;
  for (const auto& p : pools) mixed = mixed || p.hardware;
  if (!mixed) return sc.hardware.name;
  std::string text;
  for (const auto& p : pools)
    text += (text.empty() ? "" : " + ") + sim::pool_hardware(p, sc.hardware).name + " (" + sim::to_string(p.role) + ")";
  return text;
}

namespace {

// Mean time of one layer per step, by layer kind, each phase its slowest rank's time (us).
void print_layer_table(std::ostream& out, const models::ModelSpec& model, const sim::PoolResult& pool) {
  const auto& b = pool.breakdown;
  if (b.layer_ns.empty() || pool.steps == 0) return;
  out << "    per layer, per step (us) attention  dense_mlp  shared    router  dispatch  expert_gemm  combine"
         "  tp_comm     wall  exposed\n";
  for (const bool moe : {false, true}) {
    sim::PhaseTimes sum{};
    double wall = 0, exposed = 0;
    int count = 0;
    for (std::size_t l = 0; l < b.layer_ns.size(); ++l) {
      if (model.is_moe_layer(static_cast<int>(l)) != moe) continue;
      ++count;
      for (std::size_t p = 0; p < sum.size(); ++p) sum[p] += b.layer_ns[l][p];
      wall += b.wall_ns[l];
      exposed += b.exposed_comm_ns[l];
    }
    if (count == 0) continue;
    const double k = 1e-3 / (static_cast<double>(count) * static_cast<double>(pool.steps));
    out << fmt("      %-5s layers x %-3d %9.1f %10.1f %7.1f %9.1f %9.1f %12.1f %8.1f %8.1f %8.1f %8.1f\n",
               moe ? "MoE" : "dense", count, sum[0] * k, sum[1] * k, sum[2] * k, sum[3] * k, sum[4] * k, sum[5] * k,
               sum[6] * k, sum[7] * k, wall * k, exposed * k);
  }
}

void print_pool(std::ostream& out, const models::ModelSpec& model, const sim::PoolResult& p) {
  out << fmt(
      "\n  %s pool: %lld steps, mean %.2f ms, %.0f tokens per step per instance; KV peak %.0f %%, "
      "%lld preemptions\n",
      sim::to_string(p.role), static_cast<long long>(p.steps), p.mean_step_ms, p.mean_tokens_per_step,
      100.0 * p.kv_peak_utilisation, static_cast<long long>(p.preemptions));
  if (p.steady_steps > 0)
    out << fmt("    steady decode: %lld full-batch steps, mean %.2f ms, %.0f tokens per step, %.1f tokens/s per GPU\n",
               static_cast<long long>(p.steady_steps), p.steady_step_ms, p.steady_tokens_per_step,
               p.steady_tokens_per_gpu_s);
  if (p.runtime_ns_per_step > 0 || p.graph_step_share > 0)
    out << fmt("    runtime: %.3f ms per step beyond the kernels; %.0f %% of steps replayed a CUDA graph\n",
               p.runtime_ns_per_step * 1e-6, 100.0 * p.graph_step_share);
  out << "    time per step by phase (slowest rank per layer, summed over layers):\n";
  double total = p.lm_head_ns_per_step + p.pipeline_send_ns_per_step + p.draft_ns_per_step;
  for (auto v : p.phase_ns_per_step) total += v;
  auto row = [&](const char* name, double v) {
    out << fmt("      %-14s %9.3f ms  %5.1f %%\n", name, v * 1e-6, total > 0 ? 100.0 * v / total : 0.0);
  };
  for (int i = 0; i < sim::kNumPhases; ++i)
    row(sim::phase_name(static_cast<sim::Phase>(i)), p.phase_ns_per_step[static_cast<std::size_t>(i)]);
  row("lm_head", p.lm_head_ns_per_step);
  if (p.pipeline_send_ns_per_step > 0) row("pipeline_send", p.pipeline_send_ns_per_step);
  if (p.drafts_proposed > 0) {
    row("draft", p.draft_ns_per_step);
    out << fmt("      speculative: %.1f %% of %lld draft tokens accepted\n", 100.0 * p.acceptance_rate(),
               static_cast<long long>(p.drafts_proposed));
  }
  if (p.afd_attention_ranks > 0) {
    out << fmt("    attention-FFN disaggregated: %d attention + %d expert ranks, %d micro-batches\n",
               p.afd_attention_ranks, p.afd_expert_ranks, p.afd_micro_batches);
    out << fmt("      attention side %.1f %% busy, expert side %.1f %% busy; exposed transfer %.3f ms per step\n",
               100.0 * p.afd_attention_utilisation, 100.0 * p.afd_expert_utilisation,
               p.exposed_comm_ns_per_step * 1e-6);
  }
  out << fmt("      exposed communication %.3f ms per step (of %.3f ms mean step)\n", p.exposed_comm_ns_per_step * 1e-6,
             p.mean_step_ms);
  print_layer_table(out, model, p);
  // The plan's table is indented by two; under this heading it sits four further in.
  out << "    memory per rank:\n";
  const std::string table = p.memory.table();
  for (std::size_t begin = 0; begin < table.size();) {
    const std::size_t end = std::min(table.find('\n', begin), table.size());
    out << "    " << table.substr(begin, end - begin) << "\n";
    begin = end + 1;
  }
}

}  // namespace

void print_summary(std::ostream& out, const scenarios::Scenario& sc, const sim::SimulationResult& r) {
  const auto& s = r.summary;
  out << fmt("moesim: %s (seed %llu)\n", sc.name.c_str(), static_cast<unsigned long long>(sc.seed));
  out << fmt("  %s on %s (%d nodes, %s)\n", sc.model.name.c_str(), gpus_text(sc, s.gpus).c_str(), sc.cluster.nodes,
             sc.cluster.preset.c_str());
  for (const auto& p : sc.deployment.pools()) out << "  " << pool_line(p) << "\n";
  if (r.partial)
    out << fmt("  PARTIAL RESULTS: the run stopped early (%s); %lld of %lld requests had finished\n",
               r.partial_reason.c_str(), static_cast<long long>(s.completed), static_cast<long long>(s.requests));
  out << fmt(
      "  requests: %lld completed, %lld rejected, %lld preempted; %lld input + %lld output tokens in %.2f s "
      "simulated\n",
      static_cast<long long>(s.completed), static_cast<long long>(s.rejected), static_cast<long long>(s.preempted),
      static_cast<long long>(s.input_tokens), static_cast<long long>(s.output_tokens), s.makespan_s);
  out << "\n  latency       mean        p50        p90        p99\n";
  out << latency_row("TTFT", s.ttft, 1e3, "ms");
  out << latency_row("TPOT", s.tpot, 1e3, "ms");
  out << latency_row("ITL", s.itl, 1e3, "ms");
  out << latency_row("E2E", s.e2e, 1.0, "s");
  out << fmt("\n  throughput: %.1f output tokens/s/GPU, %.1f input tokens/s/GPU\n", s.output_tokens_per_gpu_s,
             s.input_tokens_per_gpu_s);
  if (s.prefix_cache) {
    const auto& c = *s.prefix_cache;
    double lo = 1, hi = 0;
    for (const auto& i : r.pools.front().prefix_caches) {
      if (i.prompt_tokens == 0) continue;  // an instance that was routed nothing
      lo = std::min(lo, i.hit_rate());
      hi = std::max(hi, i.hit_rate());
    }
    out << fmt(
        "  prefix cache (%s routing): %.1f %% of prompt tokens hit (%lld of %lld; instances %.1f-%.1f %%), "
        "%lld blocks evicted\n",
        sim::to_string(sc.deployment.router.policy), 100.0 * c.hit_rate(), static_cast<long long>(c.hit_tokens),
        static_cast<long long>(c.prompt_tokens), 100.0 * lo, 100.0 * hi, static_cast<long long>(c.evicted_blocks));
    if (c.offloaded_blocks > 0 || c.loads > 0)
      out << fmt(
          "  KV tiers: %lld prompt tokens hit in host memory, %lld in the remote store; %.2f GB loaded back by %lld "
          "requests, which waited %.1f ms each on average; %lld blocks offloaded from HBM\n",
          static_cast<long long>(c.host_hit_tokens), static_cast<long long>(c.remote_hit_tokens),
          (c.host_loaded_bytes + c.remote_loaded_bytes) / 1e9, static_cast<long long>(c.loads),
          c.loads > 0 ? 1e3 * c.load_wait_s / static_cast<double>(c.loads) : 0.0,
          static_cast<long long>(c.offloaded_blocks));
  }
  if (s.energy.known)
    out << fmt("  energy: %.3f kWh, %.0f W per GPU on average, %.3f J per output token, %.1f J per request\n",
               s.energy.joules / 3.6e6, s.energy.mean_power_w_per_gpu, s.energy.joules_per_output_token,
               s.energy.joules_per_request);
  if (s.cost.priced)
    out << fmt("  cost: $%.2f for %.2f GPU-hours, $%.3f per million output tokens\n", s.cost.usd, s.cost.gpu_hours,
               s.cost.usd_per_million_output_tokens);
  if (hardware_text(sc) != sc.hardware.name && (s.energy.known || s.cost.priced))
    for (const auto& p : r.pools) {
      out << fmt("    %s pool (%s):", sim::to_string(p.role), p.hardware.c_str());
      if (p.energy.known)
        out << fmt(" %.3f kWh, %.0f W per GPU", p.energy.joules / 3.6e6, p.energy.mean_power_w_per_gpu);
      if (p.cost.priced)
        out << fmt("%s $%.2f for %.2f GPU-hours", p.energy.known ? ";" : "", p.cost.usd, p.cost.gpu_hours);
      out << "\n";
    }
  for (const auto& p : r.pools) print_pool(out, sc.model, p);
  if (sc.slo.ttft_p90_s > 0 || sc.slo.tpot_p90_s > 0) {
    const bool ttft_ok = sc.slo.ttft_p90_s <= 0 || s.ttft.p90_s <= sc.slo.ttft_p90_s;
    const bool tpot_ok = sc.slo.tpot_p90_s <= 0 || s.tpot.p90_s <= sc.slo.tpot_p90_s;
    out << fmt("\n  SLO: TTFT p90 %s, TPOT p90 %s; %.1f %% of requests meet both targets (goodput %.2f requests/s)\n",
               ttft_ok ? "met" : "MISSED", tpot_ok ? "met" : "MISSED", 100.0 * s.slo_attainment,
               s.goodput_requests_per_s);
  }
}

}  // namespace moesim::tools
