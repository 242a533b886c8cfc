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

Summary summarize(const std::vector<RequestRecord>& requests, const std::vector<StepRecord>& steps,
                  const std::vector<std::pair<std::int64_t, std::int64_t>>& itl_samples,
                  const LayerBreakdown& breakdown, int gpus) {
  Summary s;
  s.requests = static_cast<std::int64_t>(requests.size());
  s.gpus = gpus;
  std::vector<std::pair<std::int64_t, std::int64_t>> ttft, tpot, e2e;
  std::int64_t first_arrival = -1, last_finish = 0;
  for (const auto& r : requests) {
    if (!r.rejected.empty()) {
      ++s.rejected;
      continue;
    }
    if (first_arrival < 0 || r.arrival_ns < first_arrival) first_arrival = r.arrival_ns;
    if (!r.finished()) continue;
    ++s.completed;
    s.input_tokens += r.input_tokens;
    s.output_tokens += r.output_tokens;
    last_finish = std::max(last_finish, r.finish_ns);
    ttft.emplace_back(r.first_token_ns - r.arrival_ns, 1);
    e2e.emplace_back(r.finish_ns - r.arrival_ns, 1);
    if (r.output_tokens > 1)
      tpot.emplace_back(std::llround(static_cast<double>(r.finish_ns - r.first_token_ns) /
                                     static_cast<double>(r.output_tokens - 1)),
                        1);
  }
  s.ttft = latency_stats(std::move(ttft));
  s.tpot = latency_stats(std::move(tpot));
  s.e2e = latency_stats(std::move(e2e));
  s.itl = latency_stats(itl_samples);
  if (first_arrival >= 0 && last_finish > first_arrival) {
    s.makespan_s = static_cast<double>(last_finish - first_arrival) * 1e-9;
    s.output_tokens_per_gpu_s = static_cast<double>(s.output_tokens) / s.makespan_s / gpus;
    s.input_tokens_per_gpu_s = static_cast<double>(s.input_tokens) / s.makespan_s / gpus;
  }
  s.steps = static_cast<std::int64_t>(steps.size());
  if (!steps.empty()) {
    double dur = 0, tok = 0;
    for (const auto& st : steps) {
      dur += static_cast<double>(st.duration_ns);
      tok += static_cast<double>(st.decode_tokens + st.prefill_tokens);
    }
    s.mean_step_ms = dur / static_cast<double>(steps.size()) * 1e-6;
    s.mean_tokens_per_step = tok / static_cast<double>(steps.size());
    for (const auto& layer : breakdown.layer_ns)
      for (int p = 0; p < kNumPhases; ++p) s.phase_ns_per_step[static_cast<std::size_t>(p)] += layer[static_cast<std::size_t>(p)];
    for (auto& v : s.phase_ns_per_step) v /= static_cast<double>(steps.size());
    s.lm_head_ns_per_step = breakdown.lm_head_ns / static_cast<double>(steps.size());
    for (double e : breakdown.exposed_comm_ns) s.exposed_comm_ns_per_step += e;
    s.exposed_comm_ns_per_step /= static_cast<double>(steps.size());
  }
  return s;
}

}  // namespace moesim::sim
