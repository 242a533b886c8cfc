#include "sim/metrics.h"

#include <algorithm>
#include <cmath>

namespace moesim::sim {

LatencyStats latency_stats(std::vector<std::pair<std::int64_t, std::int64_t>> samples) {
  LatencyStats s;
  std::sort(samples.begin(), samples.end());
  double total_weight = 0, sum = 0;
  for (const auto& [v, w] : samples) {
    total_weight += static_cast<double>(w);
    sum += static_cast<double>(v) * static_cast<double>(w);
  }
  if (total_weight <= 0) return s;
  s.count = static_cast<std::int64_t>(total_weight);
  s.mean_s = sum / total_weight * 1e-9;
  s.max_s = static_cast<double>(samples.back().first) * 1e-9;
  auto pct = [&](double q) {
    const double rank = std::max(1.0, std::ceil(q * total_weight));  // nearest rank, 1-based
    double cum = 0;
    for (const auto& [v, w] : samples) {
      cum += static_cast<double>(w);
      if (cum >= rank) return static_cast<double>(v) * 1e-9;
    }
    return static_cast<double>(samples.back().first) * 1e-9;
  };
  s.p50_s = pct(0.50);
  s.p90_s = pct(0.90);
  s.p99_s = pct(0.99);
  return s;
}

Summary summarize(const std::vector<RequestRecord>& requests,
                  const std::vector<std::pair<std::int64_t, std::int64_t>>& itl_samples, int gpus, SloTargets slo) {
  Summary s;
  s.requests = static_cast<std::int64_t>(requests.size());
  s.gpus = gpus;
  std::vector<std::pair<std::int64_t, std::int64_t>> ttft, tpot, e2e;
  std::int64_t first_arrival = -1, last_finish = 0, good = 0;
  for (const auto& r : requests) {
    if (!r.rejected.empty()) {
      ++s.rejected;
      continue;
    }
    if (first_arrival < 0 || r.arrival_ns < first_arrival) first_arrival = r.arrival_ns;
    if (!r.finished()) continue;
    ++s.completed;
    s.preempted += r.preemptions > 0 ? 1 : 0;
    s.input_tokens += r.input_tokens;
    s.output_tokens += r.output_tokens;
    last_finish = std::max(last_finish, r.finish_ns);
    const std::int64_t t_first = r.first_token_ns - r.arrival_ns;
    ttft.emplace_back(t_first, 1);
    e2e.emplace_back(r.finish_ns - r.arrival_ns, 1);
    double per_token = 0;
    if (r.output_tokens > 1) {
      per_token = static_cast<double>(r.finish_ns - r.first_token_ns) / static_cast<double>(r.output_tokens - 1);
      tpot.emplace_back(std::llround(per_token), 1);
    }
    const bool ttft_ok = slo.ttft_s <= 0 || static_cast<double>(t_first) * 1e-9 <= slo.ttft_s;
    const bool tpot_ok = slo.tpot_s <= 0 || per_token * 1e-9 <= slo.tpot_s;
    good += ttft_ok && tpot_ok ? 1 : 0;
  }
  s.ttft = latency_stats(std::move(ttft));
  s.tpot = latency_stats(std::move(tpot));
  s.e2e = latency_stats(std::move(e2e));
  s.itl = latency_stats(itl_samples);
  if (first_arrival >= 0 && last_finish > first_arrival) {
    s.makespan_s = static_cast<double>(last_finish - first_arrival) * 1e-9;
    s.output_tokens_per_gpu_s = static_cast<double>(s.output_tokens) / s.makespan_s / gpus;
    s.input_tokens_per_gpu_s = static_cast<double>(s.input_tokens) / s.makespan_s / gpus;
    s.goodput_requests_per_s = static_cast<double>(good) / s.makespan_s;
  }
  if (s.requests > 0) s.slo_attainment = static_cast<double>(good) / static_cast<double>(s.requests);
  return s;
}

void summarize_pool(const std::vector<StepRecord>& steps, int pool_index, PoolResult& pool) {
  double dur = 0, tok = 0;
  for (const auto& st : steps) {
    if (st.pool != pool_index) continue;
    ++pool.steps;
    dur += static_cast<double>(st.duration_ns);
    tok += static_cast<double>(st.decode_tokens + st.prefill_tokens);
  }
  if (pool.steps == 0) return;
  const auto n = static_cast<double>(pool.steps);
  pool.mean_step_ms = dur / n * 1e-6;
  pool.mean_tokens_per_step = tok / n;
  for (const auto& layer : pool.breakdown.layer_ns)
    for (std::size_t p = 0; p < layer.size(); ++p) pool.phase_ns_per_step[p] += layer[p] / n;
  pool.lm_head_ns_per_step = pool.breakdown.lm_head_ns / n;
  pool.pipeline_send_ns_per_step = pool.breakdown.pipeline_send_ns / n;
  pool.draft_ns_per_step = pool.breakdown.draft_ns / n;
  pool.runtime_ns_per_step = pool.breakdown.runtime_ns / n;
  pool.graph_step_share = static_cast<double>(pool.breakdown.graph_steps) / n;
  for (double e : pool.breakdown.exposed_comm_ns) pool.exposed_comm_ns_per_step += e / n;
  if (pool.afd_attention_ranks > 0 && pool.breakdown.afd_span_ns > 0) {
    const double span = pool.breakdown.afd_span_ns;
    pool.afd_attention_utilisation = pool.breakdown.afd_attention_busy_ns / (span * pool.afd_attention_ranks);
    pool.afd_expert_utilisation = pool.breakdown.afd_expert_busy_ns / (span * pool.afd_expert_ranks);
  }
  std::int64_t most = 0;
  for (const auto& st : steps)
    if (st.pool == pool_index && st.prefill_tokens == 0) most = std::max(most, st.running);
  double steady_ns = 0, steady_tokens = 0;
  for (const auto& st : steps) {
    if (st.pool != pool_index || st.prefill_tokens != 0 || most == 0 || 10 * st.running < 9 * most) continue;
    ++pool.steady_steps;
    steady_ns += static_cast<double>(st.duration_ns);
    steady_tokens += static_cast<double>(st.decode_tokens);
  }
  if (pool.steady_steps > 0 && steady_ns > 0) {
    const auto k = static_cast<double>(pool.steady_steps);
    pool.steady_step_ms = steady_ns / k * 1e-6;
    pool.steady_tokens_per_step = steady_tokens / k;
    pool.steady_tokens_per_gpu_s = steady_tokens / (steady_ns * 1e-9) / std::max(1, pool.ranks);
  }
}

}  // namespace moesim::sim
