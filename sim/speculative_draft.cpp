#include "sim/speculative_draft.h"

#include <algorithm>

#include "models/layer_ops.h"
#include "models/parallel_shard.h"
#include "sim/rank_costs.h"
#include "sim/tp_collective.h"

namespace moesim::sim {

models::ModelSpec draft_module(const models::ModelSpec& target, const SpeculativeConfig& spec) {
  if (spec.method == SpeculativeMethod::kDraft) return spec.draft_model;
  models::ModelSpec m = target;
  m.name = target.name + " MTP module";
  m.num_layers = 1;
  m.first_k_dense = 0;  // shaped like the MoE layers (dense models: a dense block)
  m.moe_every = 1;
  m.window = {};
  m.mtp_layers = 0;
  return m;
}

SpeculativeDraft::SpeculativeDraft(const models::ModelSpec& target, const InstanceLayout& last_stage,
                                   const topology::Cluster& cluster, const calibration::CostModel& cost,
                                   const workloads::RoutingModel& routing)
    : module_(draft_module(target, last_stage.config().speculative)),
      shard_(models::attention_shard(module_, last_stage.attention_tp())),
      cluster_(cluster),
      cost_(cost),
      passes_(last_stage.config().speculative.tokens),
      mtp_(last_stage.config().speculative.method == SpeculativeMethod::kMtp),
      attention_tp_(last_stage.attention_tp()),
      fidelity_(last_stage.config().comm.fidelity) {
  if (mtp_) {
    step_ = std::make_unique<StepModel>(module_, last_stage.with_layers(0, module_.num_layers), cluster, cost, routing,
                                        last_stage.config().overlap);
    return;
  }
  const auto& devices = last_stage.rank_devices();
  group_devices_.resize(devices.size() / static_cast<std::size_t>(attention_tp_));
  for (std::size_t r = 0; r < devices.size(); ++r)
    group_devices_[r / static_cast<std::size_t>(attention_tp_)].push_back(devices[r]);
}

double SpeculativeDraft::dense_draft_pass_ns() const {
  const double row = static_cast<double>(module_.hidden) * models::bytes_per_element(module_.activation_dtype);
  RankCostShape shape;
  shape.attention = &shard_;
  double worst = 0;
  for (std::size_t g = 0; g < batches_.size(); ++g) {
    const RankBatch& b = batches_[g];
    if (b.tokens() == 0) continue;
    const RankCosts c = rank_costs(module_, cost_, b, shape);
    double layer = c.attention + c.dense_mlp;
    if (attention_tp_ > 1)
      layer += 2.0 * tp_collective_ns(cluster_, group_devices_[g], topology::CollectiveKind::kAllReduce,
                                      static_cast<double>(b.tokens()) * row, *fidelity_);
    worst = std::max(worst, layer * module_.num_layers + c.lm_head);
  }
  return worst;
}

Duration SpeculativeDraft::run(std::span<const RankBatch> batches, std::int64_t step, workloads::Rng& rng) {
  batches_.resize(batches.size());
  std::int64_t widest = 0;
  for (std::size_t g = 0; g < batches.size(); ++g) {
    auto& b = batches_[g];
    b.clear();
    b.decode_kv_lengths = batches[g].draft_kv_lengths;
    b.sampled_tokens = static_cast<std::int64_t>(b.decode_kv_lengths.size());
    widest = std::max(widest, b.sampled_tokens);
  }
  if (widest == 0) return Duration{};
  if (!mtp_) return Duration::from_ns_rounded(dense_draft_pass_ns()) * passes_;
  // MTP: the [embedding | hidden] -> hidden projection before the block, replicated over a TP
  // group (each rank holds the group's tokens).
  const double eh_proj = cost_.gemm(widest, module_.hidden, 2LL * module_.hidden, module_.weight_dtype).time_ns;
  Duration total{};
  for (int pass = 0; pass < passes_; ++pass)
    total += step_->run(batches_, step * passes_ + pass, rng, breakdown_) + Duration::from_ns_rounded(eh_proj);
  return total;
}

}  // namespace moesim::sim
