#include <cstdio>
#include <ostream>
#include <string>

#include "tools/report.h"

namespace moesim::tools {
namespace {

std::string fmt(const char* f, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

std::string latency_row(const char* name, const sim::LatencyStats& s, double scale, const char* unit) {
  return fmt("  %-6s %10.2f %10.2f %10.2f %10.2f  %s\n", name, s.mean_s * scale, s.p50_s * scale, s.p90_s * scale,
             s.p99_s * scale, unit);
}

// Mean time of one layer per step, by layer kind, each phase its slowest rank's time (us).
void print_layer_table(std::ostream& out, const scenarios::Scenario& sc, const sim::SimulationResult& r) {
  const auto& layers = r.breakdown.layer_ns;
  if (layers.empty() || r.summary.steps == 0) return;
  out << "\n  per layer, per step (us)   attention  dense_mlp  shared    router  dispatch  expert_gemm  combine"
         "     wall  exposed\n";
  for (const bool moe : {false, true}) {
    sim::PhaseTimes sum{};
    double wall = 0, exposed = 0;
    int count = 0;
    for (std::size_t l = 0; l < layers.size(); ++l) {
      if (sc.model.is_moe_layer(static_cast<int>(l)) != moe) continue;
      ++count;
      for (std::size_t p = 0; p < sum.size(); ++p) sum[p] += layers[l][p];
      wall += r.breakdown.wall_ns[l];
      exposed += r.breakdown.exposed_comm_ns[l];
    }
    if (count == 0) continue;
    const double k = 1e-3 / (static_cast<double>(count) * static_cast<double>(r.summary.steps));
    out << fmt("    %-5s layers x %-3d   %9.1f %10.1f %7.1f %9.1f %9.1f %12.1f %8.1f %8.1f %8.1f\n", moe ? "MoE" : "dense",
               count, sum[0] * k, sum[1] * k, sum[2] * k, sum[3] * k, sum[4] * k, sum[5] * k, sum[6] * k, wall * k,
               exposed * k);
  }
}

}  // namespace

void print_summary(std::ostream& out, const scenarios::Scenario& sc, const sim::SimulationResult& r) {
  const auto& s = r.summary;
  const auto& pool = sc.deployment.colocated;
  out << fmt("moesim: %s (seed %llu)\n", sc.name.c_str(), static_cast<unsigned long long>(sc.seed));
  out << fmt("  %s on %d x %s (%d nodes), attention DP %d, EP %d, batch <= %d/rank, budget %lld tokens/rank\n",
             sc.model.name.c_str(), s.gpus, sc.hardware.name.c_str(), sc.cluster.nodes, pool.attention_dp,
             pool.moe_ep, pool.batch.max_running_per_rank,
             static_cast<long long>(pool.batch.token_budget_per_rank));
  out << fmt("  requests: %lld completed, %lld rejected; %lld input + %lld output tokens in %.2f s simulated\n",
             static_cast<long long>(s.completed), static_cast<long long>(s.rejected),
             static_cast<long long>(s.input_tokens), static_cast<long long>(s.output_tokens), s.makespan_s);
  out << "\n  latency       mean        p50        p90        p99\n";
  out << latency_row("TTFT", s.ttft, 1e3, "ms");
  out << latency_row("TPOT", s.tpot, 1e3, "ms");
  out << latency_row("ITL", s.itl, 1e3, "ms");
  out << latency_row("E2E", s.e2e, 1.0, "s");
  out << fmt("\n  throughput: %.1f output tokens/s/GPU, %.1f input tokens/s/GPU\n", s.output_tokens_per_gpu_s,
             s.input_tokens_per_gpu_s);
  out << fmt("  steps: %lld, mean %.2f ms, %.0f tokens per step across all ranks\n", static_cast<long long>(s.steps),
             s.mean_step_ms, s.mean_tokens_per_step);
  out << fmt("\n  time per step by phase (slowest rank per layer, summed over layers; overlap %s):\n",
             std::string(sim::to_string(pool.overlap.scheme)).c_str());
  double total = s.lm_head_ns_per_step;
  for (auto v : s.phase_ns_per_step) total += v;
  for (int p = 0; p < sim::kNumPhases; ++p) {
    const double v = s.phase_ns_per_step[static_cast<std::size_t>(p)];
    out << fmt("    %-14s %9.3f ms  %5.1f %%\n", sim::phase_name(static_cast<sim::Phase>(p)), v * 1e-6,
               total > 0 ? 100.0 * v / total : 0.0);
  }
  out << fmt("    %-14s %9.3f ms  %5.1f %%\n", "lm_head", s.lm_head_ns_per_step * 1e-6,
             total > 0 ? 100.0 * s.lm_head_ns_per_step / total : 0.0);
  out << fmt("    exposed communication %.3f ms per step (of %.3f ms mean step)\n", s.exposed_comm_ns_per_step * 1e-6,
             s.mean_step_ms);
  print_layer_table(out, sc, r);
  out << "\n  memory per rank:\n" << r.memory.table() << "\n";
  if (sc.slo.ttft_p90_s > 0 || sc.slo.tpot_p90_s > 0) {
    const bool ttft_ok = sc.slo.ttft_p90_s <= 0 || s.ttft.p90_s <= sc.slo.ttft_p90_s;
    const bool tpot_ok = sc.slo.tpot_p90_s <= 0 || s.tpot.p90_s <= sc.slo.tpot_p90_s;
    out << fmt("\n  SLO: TTFT p90 %s, TPOT p90 %s\n", ttft_ok ? "met" : "MISSED", tpot_ok ? "met" : "MISSED");
  }
}

}  // namespace moesim::tools
