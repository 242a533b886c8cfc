#include "sim/step_model.h"

#include <algorithm>

#include "models/layer_ops.h"
#include "sim/check.h"
#include "topology/all_to_all.h"

namespace moesim::sim {

const char* phase_name(Phase p) {
  switch (p) {
    case Phase::kAttention: return "attention";
    case Phase::kDenseMlp: return "dense_mlp";
    case Phase::kSharedExpert: return "shared_expert";
    case Phase::kRouter: return "router";
    case Phase::kDispatch: return "dispatch";
    case Phase::kExpertGemm: return "expert_gemm";
    case Phase::kCombine: return "combine";
  }
  return "?";
}

std::int64_t RankBatch::tokens() const {
  std::int64_t t = static_cast<std::int64_t>(decode_kv_lengths.size());
  for (const auto& c : prefill_chunks) t += c.tokens;
  return t;
}

StepModel::StepModel(const models::ModelSpec& model, const Deployment& deployment,
                     const topology::Cluster& cluster, const calibration::CostModel& cost,
                     const workloads::RoutingModel& routing)
    : model_(model),
      deployment_(deployment),
      cluster_(cluster),
      cost_(cost),
      routing_(routing),
      dispatch_bytes_per_token_(models::dispatch_bytes_per_token(model)),
      combine_bytes_per_token_(models::combine_bytes_per_token(model)) {
  const auto ranks = static_cast<std::size_t>(deployment.ranks());
  probs_.resize(static_cast<std::size_t>(model.routed_experts));
  rank_mass_.resize(ranks);
  pairs_.resize(ranks * ranks);
  expert_counts_.resize(static_cast<std::size_t>(model.routed_experts));
}

StepModel::RankCosts StepModel::rank_costs(const RankBatch& b) const {
  RankCosts c;
  const std::int64_t t = b.tokens();
  if (t == 0) return c;
  const auto w = model_.weight_dtype;
  const auto act = model_.activation_dtype;
  const double act_bytes = models::bytes_per_element(act);
  // Two RMSNorms and the residual adds per layer stream the hidden state a few times.
  const double norm_bytes = 4.0 * static_cast<double>(t) * model_.hidden * act_bytes;
  c.attention = cost_.memory_op(norm_bytes).time_ns;
  for (const auto& op : models::attention_projections(model_)) c.attention += cost_.gemm(t, op.n, op.k, w).time_ns;
  if (!b.decode_kv_lengths.empty()) c.attention += cost_.attention_decode(model_, b.decode_kv_lengths).time_ns;
  if (!b.prefill_chunks.empty()) c.attention += cost_.attention_prefill(model_, b.prefill_chunks).time_ns;

  auto mlp = [&](std::int64_t inter) {
    const auto gu = models::mlp_gate_up(model_, inter);
    const auto dn = models::mlp_down(model_, inter);
    return cost_.gemm(t, gu.n, gu.k, w).time_ns + cost_.gemm(t, dn.n, dn.k, w).time_ns +
           cost_.memory_op(3.0 * static_cast<double>(t) * inter * act_bytes).time_ns;  // SiLU(gate)*up
  };
  c.dense_mlp = mlp(model_.dense_intermediate);
  if (model_.shared_experts > 0) c.shared = mlp(static_cast<std::int64_t>(model_.moe_intermediate) * model_.shared_experts);
  if (model_.routed_experts > 0) {
    const auto r = models::router(model_);
    c.router = cost_.gemm(t, r.n, r.k, act).time_ns;
  }
  if (b.sampled_tokens > 0) {
    const auto h = models::lm_head(model_);
    c.lm_head = cost_.gemm(b.sampled_tokens, h.n, h.k, act).time_ns;
  }
  return c;
}

void StepModel::draw_layer_routing(int moe_layer, std::int64_t step, std::span<const std::int64_t> tokens,
                                   workloads::Rng& rng) {
  if (!probs_cached_ || !routing_.is_static()) {
    routing_.expert_distribution(moe_layer, step, probs_);
    std::fill(rank_mass_.begin(), rank_mass_.end(), 0.0);
    for (int e = 0; e < model_.routed_experts; ++e)
      rank_mass_[static_cast<std::size_t>(deployment_.expert_rank(e))] += probs_[static_cast<std::size_t>(e)];
    probs_cached_ = true;
  }
  const int ranks = deployment_.ranks();
  const auto n = static_cast<std::size_t>(ranks);
  std::fill(pairs_.begin(), pairs_.end(), 0);
  std::fill(expert_counts_.begin(), expert_counts_.end(), 0);
  for (int s = 0; s < ranks; ++s) {
    const std::int64_t pairs = tokens[static_cast<std::size_t>(s)] * model_.top_k;
    if (pairs == 0) continue;
    workloads::sample_multinomial(pairs, rank_mass_, rng,
                                  std::span(pairs_).subspan(static_cast<std::size_t>(s) * n, n));
  }
  const int per_rank = deployment_.experts_per_rank();
  for (int d = 0; d < ranks; ++d) {
    std::int64_t received = 0;
    for (int s = 0; s < ranks; ++s) received += pairs_[static_cast<std::size_t>(s) * n + static_cast<std::size_t>(d)];
    if (received == 0) continue;
    const auto first = static_cast<std::size_t>(d) * static_cast<std::size_t>(per_rank);
    workloads::sample_multinomial(received, std::span<const double>(probs_).subspan(first, static_cast<std::size_t>(per_rank)),
                                  rng, std::span(expert_counts_).subspan(first, static_cast<std::size_t>(per_rank)));
  }
}

Duration StepModel::run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng,
                        LayerBreakdown& breakdown) {
  const int ranks = deployment_.ranks();
  const auto n = static_cast<std::size_t>(ranks);
  if (breakdown.layer_ns.size() != static_cast<std::size_t>(model_.num_layers))
    breakdown.layer_ns.assign(static_cast<std::size_t>(model_.num_layers), PhaseTimes{});

  std::vector<RankCosts> costs(n);
  std::vector<std::int64_t> tokens(n);
  for (std::size_t r = 0; r < n; ++r) {
    costs[r] = rank_costs(batches[r]);
    tokens[r] = batches[r].tokens();
  }
  auto max_over = [&](auto field) {
    double m = 0;
    for (const auto& c : costs) m = std::max(m, c.*field);
    return m;
  };
  const double attention_max = max_over(&RankCosts::attention);
  const double dense_max = max_over(&RankCosts::dense_mlp);
  const double shared_max = max_over(&RankCosts::shared);
  const double router_max = max_over(&RankCosts::router);

  std::vector<double> clock(n, 0.0);
  std::vector<double> gemm(n, 0.0);
  topology::TrafficMatrix dispatch(ranks), combine(ranks);
  int moe_index = 0;
  const auto w = model_.weight_dtype;
  const auto gu = models::mlp_gate_up(model_, model_.moe_intermediate);
  const auto dn = models::mlp_down(model_, model_.moe_intermediate);
  const int per_rank = deployment_.experts_per_rank();
  const double act_bytes = models::bytes_per_element(model_.activation_dtype);

  for (int layer = 0; layer < model_.num_layers; ++layer) {
    auto& lb = breakdown.layer_ns[static_cast<std::size_t>(layer)];
    lb[static_cast<int>(Phase::kAttention)] += attention_max;
    if (!model_.is_moe_layer(layer)) {
      for (std::size_t r = 0; r < n; ++r) clock[r] += costs[r].attention + costs[r].dense_mlp;
      lb[static_cast<int>(Phase::kDenseMlp)] += dense_max;
      continue;
    }
    draw_layer_routing(moe_index++, step, tokens, rng);
    double barrier = 0;
    for (std::size_t r = 0; r < n; ++r) {
      clock[r] += costs[r].attention + costs[r].router + costs[r].shared;
      barrier = std::max(barrier, clock[r]);
    }
    std::int64_t routed = 0;
    for (int s = 0; s < ranks; ++s)
      for (int d = 0; d < ranks; ++d) {
        const auto p = pairs_[static_cast<std::size_t>(s) * n + static_cast<std::size_t>(d)];
        routed += p;
        const double fabric = s == d ? 0.0 : static_cast<double>(p);  // local pairs are not sent
        dispatch.at(s, d) = fabric * dispatch_bytes_per_token_;
        combine.at(d, s) = fabric * combine_bytes_per_token_;
      }
    const auto disp = topology::all_to_all_v_analytic(cluster_, deployment_.rank_devices(), dispatch);
    const auto comb = topology::all_to_all_v_analytic(cluster_, deployment_.rank_devices(), combine);
    double gemm_max = 0;
    for (int r = 0; r < ranks; ++r) {
      const auto counts = std::span<const std::int64_t>(expert_counts_)
                              .subspan(static_cast<std::size_t>(r) * static_cast<std::size_t>(per_rank),
                                       static_cast<std::size_t>(per_rank));
      std::int64_t rows = 0;
      for (auto c : counts) rows += c;
      double g = 0;
      if (rows > 0) {
        g = cost_.grouped_gemm(counts, gu.n, gu.k, w).time_ns + cost_.grouped_gemm(counts, dn.n, dn.k, w).time_ns +
            cost_.memory_op(3.0 * static_cast<double>(rows) * model_.moe_intermediate * act_bytes).time_ns;
      }
      gemm[static_cast<std::size_t>(r)] = g;
      gemm_max = std::max(gemm_max, g);
    }
    const double layer_end = barrier + disp.duration_ns + gemm_max + comb.duration_ns;
    std::fill(clock.begin(), clock.end(), layer_end);

    lb[static_cast<int>(Phase::kRouter)] += router_max;
    lb[static_cast<int>(Phase::kSharedExpert)] += shared_max;
    lb[static_cast<int>(Phase::kDispatch)] += disp.duration_ns;
    lb[static_cast<int>(Phase::kExpertGemm)] += gemm_max;
    lb[static_cast<int>(Phase::kCombine)] += comb.duration_ns;
    breakdown.dispatch_bytes += dispatch.total_bytes();
    breakdown.combine_bytes += combine.total_bytes();
    breakdown.tokens_routed += routed;
    std::int64_t combined = 0;
    for (auto c : expert_counts_) combined += c;
    MOESIM_CHECK(combined == routed, "token-expert pairs dispatched != pairs received by experts");
    breakdown.tokens_combined += combined;
  }
  double end = 0;
  double lm_max = 0;
  for (std::size_t r = 0; r < n; ++r) {
    end = std::max(end, clock[r] + costs[r].lm_head);
    lm_max = std::max(lm_max, costs[r].lm_head);
  }
  breakdown.lm_head_ns += lm_max;
  return Duration::from_ns_rounded(end);
}

}  // namespace moesim::sim
