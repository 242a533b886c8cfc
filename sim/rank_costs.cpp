#include "sim/rank_costs.h"

#include "models/layer_ops.h"

namespace moesim::sim {

RankCosts rank_costs(const models::ModelSpec& m, const calibration::CostModel& cost, const RankBatch& b) {
  RankCosts c;
  const std::int64_t t = b.tokens();
  if (t == 0) return c;
  const auto w = m.weight_dtype;
  const auto act = m.activation_dtype;
  const double act_bytes = models::bytes_per_element(act);
  // Two RMSNorms and the residual adds per layer stream the hidden state a few times.
  const double norm_bytes = 4.0 * static_cast<double>(t) * m.hidden * act_bytes;
  c.attention = cost.memory_op(norm_bytes).time_ns;
  for (const auto& op : models::attention_projections(m)) c.attention += cost.gemm(t, op.n, op.k, w).time_ns;
  if (!b.decode_kv_lengths.empty()) c.attention += cost.attention_decode(m, b.decode_kv_lengths).time_ns;
  if (!b.prefill_chunks.empty()) c.attention += cost.attention_prefill(m, b.prefill_chunks).time_ns;

  auto mlp = [&](std::int64_t inter) {
    const auto gu = models::mlp_gate_up(m, inter);
    const auto dn = models::mlp_down(m, inter);
    return cost.gemm(t, gu.n, gu.k, w).time_ns + cost.gemm(t, dn.n, dn.k, w).time_ns +
           cost.memory_op(3.0 * static_cast<double>(t) * inter * act_bytes).time_ns;  // SiLU(gate)*up
  };
  c.dense_mlp = mlp(m.dense_intermediate);
  if (m.shared_experts > 0) c.shared = mlp(static_cast<std::int64_t>(m.moe_intermediate) * m.shared_experts);
  if (m.routed_experts > 0) {
    const auto r = models::router(m);
    c.router = cost.gemm(t, r.n, r.k, act).time_ns;
  }
  if (b.sampled_tokens > 0) {
    const auto h = models::lm_head(m);
    c.lm_head = cost.gemm(b.sampled_tokens, h.n, h.k, act).time_ns;
  }
  return c;
}

double expert_gemm_ns(const models::ModelSpec& m, const calibration::CostModel& cost,
                      std::span<const std::int64_t> counts) {
  std::int64_t rows = 0;
  for (auto c : counts) rows += c;
  if (rows == 0) return 0;
  const auto gu = models::mlp_gate_up(m, m.moe_intermediate);
  const auto dn = models::mlp_down(m, m.moe_intermediate);
  const double act_bytes = models::bytes_per_element(m.activation_dtype);
  return cost.grouped_gemm(counts, gu.n, gu.k, m.weight_dtype).time_ns +
         cost.grouped_gemm(counts, dn.n, dn.k, m.weight_dtype).time_ns +
         cost.memory_op(3.0 * static_cast<double>(rows) * m.moe_intermediate * act_bytes).time_ns;
}

}  // namespace moesim::sim
