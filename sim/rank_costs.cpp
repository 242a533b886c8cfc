#include "sim/rank_costs.h"

#include <algorithm>
#include <vector>

#include "models/layer_ops.h"
#include "models/linear_attention.h"
#include "topology/all_to_all.h"

namespace moesim::sim {
namespace {

double core_ns(const models::ModelSpec& m, const calibration::CostModel& cost, std::span<const std::int64_t> kv,
               int queries, std::span<const calibration::PrefillChunk> chunks) {
  double t = 0;
  if (!kv.empty()) t += (queries > 1 ? cost.attention_verify(m, kv, queries) : cost.attention_decode(m, kv)).time_ns;
  if (!chunks.empty()) t += cost.attention_prefill(m, chunks).time_ns;
  return t;
}

}  // namespace

int first_local_layer(const models::ModelSpec& m) {
  if (m.window.size <= 0 && !m.linear.enabled()) return -1;  // no layer can be local: skip the walk
  for (int l = 0; l < m.num_layers; ++l)
    if (local_attention_layer(m, l)) return l;
  return -1;
}

RankCosts rank_costs(const models::ModelSpec& m, const calibration::CostModel& cost, const RankBatch& b) {
  return rank_costs(m, cost, b, RankCostShape{});
}

RankCosts token_costs(const models::ModelSpec& m, const calibration::CostModel& cost, std::int64_t t,
                      std::int64_t moe_t, std::int64_t sampled, const RankCostShape& shape) {
  RankCosts c;
  if (t == 0 && moe_t == 0) return c;
  const models::ModelSpec& a = shape.attention != nullptr ? *shape.attention : m;
  const auto w = m.weight_dtype;
  const auto act = m.activation_dtype;
  const double act_bytes = models::bytes_per_element(act);
  // Norms, RoPE, the KV-cache write and activation quantisation: one kernel each.
  double base = 0;
  if (t > 0) {
    for (const auto& op : models::attention_stream_ops(a)) {
      const double ns = cost.memory_op(static_cast<double>(t) * op.bytes_per_token).time_ns;
      base += ns;
      c.attention_prep += (1.0 - op.after_core) * ns;
    }
    for (const auto& op : models::attention_projections(a)) {
      const double ns = cost.gemm(t, op.n, op.k, w).time_ns;
      base += ns;
      c.attention_prep += (1.0 - op.after_core) * ns;
    }
  }
  c.attention = c.attention_local = base;
  c.attention_local_prep = c.attention_prep;
  if (a.linear.enabled()) {
    // A linear-attention layer: its own projections and stream ops (models/linear_attention.h).
    c.attention_local = c.attention_local_prep = 0;
    if (t > 0) {
      for (const auto& op : models::linear_attention_stream_ops(a)) {
        const double ns = cost.memory_op(static_cast<double>(t) * op.bytes_per_token).time_ns;
        c.attention_local += ns;
        c.attention_local_prep += (1.0 - op.after_core) * ns;
      }
      for (const auto& op : models::linear_attention_projections(a)) {
        const double ns = cost.gemm(t, op.n, op.k, w).time_ns;
        c.attention_local += ns;
        c.attention_local_prep += (1.0 - op.after_core) * ns;
      }
    }
  }

  auto mlp = [&](std::int64_t rows, std::int64_t inter) {
    if (rows == 0 || inter == 0) return 0.0;
    const auto gu = models::mlp_gate_up(m, inter);
    const auto dn = models::mlp_down(m, inter);
    double quant = 0;  // the FP8 (FP4) GEMMs' activations, quantised per token first
    if (models::quantises_activations(w))
      for (const std::int64_t width : {gu.k, dn.k})
        quant += cost.memory_op(static_cast<double>(rows) * models::activation_quant_bytes(m, width, w)).time_ns;
    return cost.gemm(rows, gu.n, gu.k, w).time_ns + cost.gemm(rows, dn.n, dn.k, w).time_ns +
           cost.memory_op(3.0 * static_cast<double>(rows) * inter * act_bytes).time_ns + quant;  // SiLU(gate)*up
  };
  c.dense_mlp = mlp(t, a.dense_intermediate);
  if (m.shared_experts > 0)
    c.shared = mlp(moe_t, std::int64_t{m.moe_intermediate} * m.shared_experts / std::max(1, shape.shared_split));
  if (m.routed_experts > 0 && moe_t > 0) {
    const auto r = models::router(m);
    c.router = cost.gemm(moe_t, r.n, r.k, act).time_ns;
    for (const auto& op : models::moe_stream_ops(m))
      c.router += cost.memory_op(static_cast<double>(moe_t) * op.bytes_per_token).time_ns;
  }
  if (sampled > 0) {
    const auto h = models::lm_head(m);
    c.lm_head = cost.gemm(sampled, h.n, h.k, act).time_ns;
  }
  return c;
}

RankCosts with_attention_cores(RankCosts c, const models::ModelSpec& m, const calibration::CostModel& cost,
                               const RankBatch& b, const RankCostShape& shape) {
  if (b.tokens() + b.padding == 0 && (shape.moe_tokens < 0 ? b.tokens() : shape.moe_tokens) == 0) return c;
  const models::ModelSpec& a = shape.attention != nullptr ? *shape.attention : m;
  c.attention = c.attention + core_ns(a, cost, b.decode_kv_lengths, b.decode_queries, b.prefill_chunks);
  if (m.linear.enabled()) {
    c.attention_local =
        c.attention_local +
        cost.linear_attention(a, b.decode_kv_lengths.size(), b.decode_queries, b.prefill_chunks).time_ns;
  } else if (const int local = first_local_layer(m); local >= 0) {
    // A local layer attends to at most its window (or the current chunk) of the context.
    std::vector<std::int64_t> kv(b.decode_kv_lengths.size());
    for (std::size_t i = 0; i < kv.size(); ++i) kv[i] = models::effective_kv_len(m, local, b.decode_kv_lengths[i]);
    std::vector<calibration::PrefillChunk> chunks = b.prefill_chunks;
    for (auto& ch : chunks)
      ch.past =
          std::clamp<std::int64_t>(models::effective_kv_len(m, local, ch.past + ch.tokens) - ch.tokens, 0, ch.past);
    c.attention_local = c.attention_local + core_ns(a, cost, kv, b.decode_queries, chunks);
  } else {
    c.attention_local = 0;
  }
  return c;
}

RankCosts rank_costs(const models::ModelSpec& m, const calibration::CostModel& cost, const RankBatch& b,
                     const RankCostShape& shape) {
  const std::int64_t t = b.tokens() + b.padding;
  const std::int64_t moe_t = shape.moe_tokens < 0 ? t : shape.moe_tokens;
  return with_attention_cores(token_costs(m, cost, t, moe_t, b.sampled_tokens, shape), m, cost, b, shape);
}

RankCosts RankCostMemo::operator()(const models::ModelSpec& m, const calibration::CostModel& cost, const RankBatch& b,
                                   const RankCostShape& shape) {
  const std::int64_t t = b.tokens() + b.padding;
  const std::int64_t moe_t = shape.moe_tokens < 0 ? t : shape.moe_tokens;
  const Key key{t, moe_t, b.sampled_tokens, shape.attention, shape.shared_split};
  Entry* hit = nullptr;
  for (auto& e : entries_)
    if (e.key == key) {
      hit = &e;
      break;
    }
  if (!hit) {
    if (entries_.size() < kEntries) {
      entries_.push_back({key, {}});
      hit = &entries_.back();
    } else {
      hit = &entries_[next_];
      next_ = (next_ + 1) % kEntries;
    }
    hit->key = key;
    hit->costs = token_costs(m, cost, t, moe_t, b.sampled_tokens, shape);
  }
  return with_attention_cores(hit->costs, m, cost, b, shape);
}

double expert_gemm_ns(const models::ModelSpec& m, const calibration::CostModel& cost,
                      std::span<const std::int64_t> counts, int tp) {
  std::int64_t rows = 0;
  for (auto c : counts) rows += c;
  if (rows == 0) return 0;
  const std::int64_t inter = m.moe_intermediate / std::max(1, tp);
  const auto gu = models::mlp_gate_up(m, inter);
  const auto dn = models::mlp_down(m, inter);
  const double act_bytes = models::bytes_per_element(m.activation_dtype);
  return cost.grouped_gemm(counts, gu.n, gu.k, m.expert_dtype()).time_ns +
         cost.grouped_gemm(counts, dn.n, dn.k, m.expert_dtype()).time_ns +
         cost.memory_op(3.0 * static_cast<double>(rows) * inter * act_bytes).time_ns;
}

void expert_gemm_times(const models::ModelSpec& m, const calibration::CostModel& cost,
                       std::span<const std::int64_t> slot_counts, std::size_t per_rank, std::span<double> out,
                       std::vector<double>& scratch, int tp) {
  const std::int64_t inter = m.moe_intermediate / std::max(1, tp);
  const auto gu = models::mlp_gate_up(m, inter);
  const auto dn = models::mlp_down(m, inter);
  const double act_bytes = models::bytes_per_element(m.activation_dtype);
  const calibration::GemmShape shapes[] = {{gu.n, gu.k}, {dn.n, dn.k}};
  cost.grouped_gemm_times(slot_counts, per_rank, shapes, m.expert_dtype(), out);
  // SiLU(gate) * up, one memory-bound kernel per rank over its rows.
  const std::size_t n = out.size();
  scratch.resize(2 * n);
  const std::span<double> bytes(scratch.data(), n), silu(scratch.data() + n, n);
  const auto rows_of = [&](std::size_t r) {
    std::int64_t rows = 0;
    for (std::size_t j = r * per_rank; j < (r + 1) * per_rank && j < slot_counts.size(); ++j) rows += slot_counts[j];
    return rows;
  };
  for (std::size_t r = 0; r < n; ++r) bytes[r] = 3.0 * static_cast<double>(rows_of(r)) * inter * act_bytes;
  cost.memory_op_times(bytes, silu);
  for (std::size_t r = 0; r < n; ++r) out[r] = rows_of(r) == 0 ? 0.0 : out[r] + silu[r];
}

LowLatencyPhases low_latency_phases(const models::ModelSpec& m, const calibration::CostModel& cost, std::int64_t tokens,
                                    std::int64_t received_pairs, double dispatch_bytes_per_token,
                                    double combine_bytes_per_token) {
  LowLatencyPhases p;
  low_latency_token_phases(m, cost, tokens, dispatch_bytes_per_token, combine_bytes_per_token, p);
  low_latency_pair_phases(cost, received_pairs, dispatch_bytes_per_token, combine_bytes_per_token, p);
  return p;
}

void low_latency_token_phases(const models::ModelSpec& m, const calibration::CostModel& cost, std::int64_t tokens,
                              double dispatch_bytes_per_token, double combine_bytes_per_token, LowLatencyPhases& p) {
  p.dispatch_send = p.combine_recv = 0;
  if (tokens <= 0) return;
  const double act = static_cast<double>(m.hidden) * models::bytes_per_element(m.activation_dtype);
  const auto t = static_cast<double>(tokens), pairs = static_cast<double>(tokens) * m.top_k;
  p.dispatch_send = cost.memory_op(t * (act + dispatch_bytes_per_token)).time_ns;
  p.combine_recv = cost.memory_op(pairs * combine_bytes_per_token + t * act).time_ns;
}

void low_latency_pair_phase_times(const calibration::CostModel& cost, std::span<const std::int64_t> received_pairs,
                                  double dispatch_bytes_per_token, double combine_bytes_per_token,
                                  std::span<double> dispatch_recv, std::span<double> combine_send,
                                  std::vector<double>& scratch) {
  const std::size_t n = received_pairs.size();
  scratch.resize(n);
  for (std::size_t r = 0; r < n; ++r)
    scratch[r] = 2.0 * static_cast<double>(received_pairs[r]) * dispatch_bytes_per_token;
  cost.memory_op_times(scratch, dispatch_recv);
  for (std::size_t r = 0; r < n; ++r)
    scratch[r] = 2.0 * static_cast<double>(received_pairs[r]) * combine_bytes_per_token;
  cost.memory_op_times(scratch, combine_send);
  for (std::size_t r = 0; r < n; ++r)
    if (received_pairs[r] <= 0) dispatch_recv[r] = combine_send[r] = 0;
}

void low_latency_pair_phases(const calibration::CostModel& cost, std::int64_t received_pairs,
                             double dispatch_bytes_per_token, double combine_bytes_per_token, LowLatencyPhases& p) {
  p.dispatch_recv = p.combine_send = 0;
  if (received_pairs <= 0) return;
  const auto recv = static_cast<double>(received_pairs);
  p.dispatch_recv = cost.memory_op(2.0 * recv * dispatch_bytes_per_token).time_ns;
  p.combine_send = cost.memory_op(2.0 * recv * combine_bytes_per_token).time_ns;
}

LowLatencyKernel low_latency_kernel(const LowLatencyPhases& p, topology::Direction direction, double transfer_ns) {
  const bool dispatch = direction == topology::Direction::kDispatch;
  return {dispatch ? p.dispatch_send : p.combine_send, transfer_ns, dispatch ? p.dispatch_recv : p.combine_recv};
}

}  // namespace moesim::sim
