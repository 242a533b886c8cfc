// The tensor-parallel parts of the step model (sim/step_model.h describes the plan): per-rank
// costs and routed tokens from the attention groups' batches, the TP collectives' durations,
// and the MoE layer under MoE TP (gather, local expert shards, scatter; no all-to-all).
#include <algorithm>

#include "models/layer_ops.h"
#include "models/parallel_shard.h"
#include "sim/check.h"
#include "sim/invariants.h"
#include "sim/lane_max.h"
#include "sim/step_model.h"
#include "sim/tp_collective.h"

namespace moesim::sim {

void StepModel::init_parallel() {
  attention_tp_ = deployment_.attention_tp();
  gathered_moe_ = deployment_.moe_tp() > 1;
  attention_shard_ = models::attention_shard(model_, attention_tp_);
  const int ranks = deployment_.ranks();
  const int groups = ranks / attention_tp_;
  const auto& devices = deployment_.rank_devices();
  group_devices_.assign(static_cast<std::size_t>(groups), {});
  for (int r = 0; r < ranks; ++r)
    group_devices_[static_cast<std::size_t>(r / attention_tp_)].push_back(devices[static_cast<std::size_t>(r)]);
  group_tokens_.assign(static_cast<std::size_t>(groups), 0);
  unit_tokens_.assign(static_cast<std::size_t>(deployment_.ep()), 0);
  unit_gemm_ns_.assign(static_cast<std::size_t>(deployment_.ep()), 0.0);
  for (auto& mb : micro_) {
    mb.group_all_reduce.assign(static_cast<std::size_t>(groups), 0.0);
    mb.group_reduce_scatter.assign(static_cast<std::size_t>(groups), 0.0);
    mb.group_all_gather.assign(static_cast<std::size_t>(groups), 0.0);
    mb.stage_all_gather.assign(1, 0.0);
    mb.stage_reduce_scatter.assign(1, 0.0);
  }
}

void StepModel::cost_micro_batch(MicroBatch& mb, std::span<const RankBatch> groups) {
  const std::size_t n = groups.size();
  if (attention_tp_ == 1 && !gathered_moe_) {
    for (std::size_t r = 0; r < n; ++r) {
      mb.costs[r] = rank_cost_memo_(model_, cost_, groups[r]);
      mb.tokens[r] = groups[r].tokens();
    }
    return;
  }
  const auto tp = static_cast<std::size_t>(attention_tp_);
  std::int64_t total = 0, widest_slice = 0;
  for (std::size_t g = 0; g < n; ++g) {
    group_tokens_[g] = groups[g].tokens();
    total += group_tokens_[g];
    // After the reduce-scatter rank j of the group holds its 1/tp share of the group's tokens.
    for (std::size_t j = 0; j < tp; ++j) {
      const auto t = static_cast<std::int64_t>(tp);
      const std::int64_t slice = group_tokens_[g] / t + (static_cast<std::int64_t>(j) < group_tokens_[g] % t ? 1 : 0);
      mb.tokens[g * tp + j] = slice;
      widest_slice = std::max(widest_slice, slice);
    }
  }
  RankCostShape shape;
  shape.attention = &attention_shard_;
  if (gathered_moe_) {
    shape.moe_tokens = total;  // every rank routes all the stage's tokens
    shape.shared_split = deployment_.ranks();
  }
  for (std::size_t g = 0; g < n; ++g)
    for (std::size_t j = 0; j < tp; ++j) {
      const std::size_t r = g * tp + j;
      if (!gathered_moe_) shape.moe_tokens = mb.tokens[r];
      // Ranks of a group with equal shapes cost the same; compute once.
      if (j > 0 && (gathered_moe_ || mb.tokens[r] == mb.tokens[r - 1])) {
        mb.costs[r] = mb.costs[r - 1];
      } else {
        mb.costs[r] = rank_cost_memo_(model_, cost_, groups[g], shape);
      }
    }

  // The step's TP collectives: hidden states of each group's tokens (and, under MoE TP, of the
  // whole stage's, padded to the widest rank's share as NCCL's equal-sized blocks are).
  const double row_bytes = static_cast<double>(model_.hidden) * models::bytes_per_element(model_.activation_dtype);
  const topology::NetworkFidelity& fidelity = *deployment_.config().comm.fidelity;
  auto time = [&](const std::vector<int>& devices, topology::CollectiveKind kind, double bytes) {
    return tp_collective_ns(cluster_, devices, kind, bytes, fidelity);
  };
  for (std::size_t g = 0; g < n && attention_tp_ > 1; ++g) {
    const double bytes = static_cast<double>(group_tokens_[g]) * row_bytes;
    mb.group_all_reduce[g] = time(group_devices_[g], topology::CollectiveKind::kAllReduce, bytes);
    mb.group_reduce_scatter[g] = time(group_devices_[g], topology::CollectiveKind::kReduceScatter, bytes);
    mb.group_all_gather[g] = time(group_devices_[g], topology::CollectiveKind::kAllGather, bytes);
  }
  if (gathered_moe_) {
    const double bytes = static_cast<double>(widest_slice) * deployment_.ranks() * row_bytes;
    mb.stage_all_gather[0] = time(deployment_.rank_devices(), topology::CollectiveKind::kAllGather, bytes);
    mb.stage_reduce_scatter[0] = time(deployment_.rank_devices(), topology::CollectiveKind::kReduceScatter, bytes);
  }
}

void StepModel::tp_collective(MicroBatch& mb, const std::vector<double>& durations, int group, PhaseTimes& phases,
                              const char* name) {
  const int m = static_cast<int>(&mb - micro_.data());
  timeline_.group_collective(mb.ready, group, durations, mb.ready, {name, layer_, m});
  phases[static_cast<int>(Phase::kTpComm)] += max_of(durations);
}

void StepModel::run_gathered_moe_layer(MicroBatch& mb, int moe_layer, std::int64_t step, workloads::Rng& rng,
                                       PhaseTimes& phases, LayerBreakdown& breakdown) {
  const int m = static_cast<int>(&mb - micro_.data());
  const int ranks = deployment_.ranks();
  const auto& kind = mb.kinds[layer_local_];
  timeline_.compute(mb.ready, kind.whole, mb.ready, {"attention", layer_, m});
  if (attention_tp_ > 1) tp_collective(mb, mb.group_reduce_scatter, attention_tp_, phases, "tp_reduce_scatter");
  tp_collective(mb, mb.stage_all_gather, ranks, phases, "moe_tp_all_gather");
  timeline_.compute(mb.ready, mb.router_shared, mb.ready, {"router+shared_expert", layer_, m});

  // Routing over the EP groups: each group's tokens are those its ranks held before the gather.
  const int unit = deployment_.moe_tp();
  std::fill(unit_tokens_.begin(), unit_tokens_.end(), 0);
  for (int r = 0; r < ranks; ++r)
    unit_tokens_[static_cast<std::size_t>(r / unit)] += mb.tokens[static_cast<std::size_t>(r)];
  routing_.draw(moe_layer, step, unit_tokens_, rng);
  check_layer_pairs(moe_layer, routing_.total_pairs(), routing_.total_received());
  for (std::size_t u = 0; u < unit_gemm_ns_.size(); ++u)
    unit_gemm_ns_[u] = expert_gemm_ns(model_, cost_, routing_.local_counts(static_cast<int>(u)), unit);
  for (int r = 0; r < ranks; ++r) {
    const double g = unit_gemm_ns_[static_cast<std::size_t>(r / unit)];
    mb.gemm_ns[static_cast<std::size_t>(r)] = g;
    mb.scratch[static_cast<std::size_t>(r)] = g;
  }
  timeline_.compute(mb.ready, mb.scratch, mb.ready, {"expert_gemm", layer_, m});
  tp_collective(mb, mb.stage_reduce_scatter, ranks, phases, "moe_tp_reduce_scatter");
  if (attention_tp_ > 1) tp_collective(mb, mb.group_all_gather, attention_tp_, phases, "tp_all_gather");

  phases[static_cast<int>(Phase::kAttention)] += kind.slowest;
  phases[static_cast<int>(Phase::kRouter)] += mb.router_slowest;
  phases[static_cast<int>(Phase::kSharedExpert)] += mb.shared_slowest;
  phases[static_cast<int>(Phase::kExpertGemm)] += max_of(mb.gemm_ns);
  breakdown.tokens_routed += routing_.total_pairs();
  breakdown.tokens_combined += routing_.total_received();
}

}  // namespace moesim::sim
