// The two-batch decode schedule (sim/overlap.h): DeepSeek's five-stage decode pipeline as
// SGLang runs it (operations_strategy: the decode strategy's five stages, the second micro-batch
// two stages behind the first). Per layer and micro-batch the stages are
//   S1 attention before its core (norm, q/kv projections, RoPE, cache write),
//   S2 the attention core and o-projection, then the router,
//   S3 the dispatch's send and the shared expert while the dispatch is in flight,
//   S4 the dispatch's receive, the grouped GEMM and the combine's send,
//   S5 the combine's receive,
// and the compute stream runs A1 A2, then A(k+2) B(k) for every k, then B's last two: each
// micro-batch's dispatch is in flight over its shared expert and the other's S1, its combine
// over the other's S2, and both micro-batches' GEMMs run with nothing in flight. Dense layers
// take S1 and S2 (the dense MLP in S2) and leave S3-S5 empty.
#include <algorithm>

#include "sim/step_model.h"

namespace moesim::sim {
namespace {

constexpr int kStages = 5;

}  // namespace

bool StepModel::decode_schedule(std::span<const RankBatch> batches) const {
  if (overlap_.scheme != OverlapScheme::kTwoBatch || gathered_moe_) return false;
  // A step with any prefill chunk (prefill or mixed) runs SGLang's extend schedule instead.
  return std::all_of(batches.begin(), batches.end(), [](const RankBatch& b) { return b.prefill_chunks.empty(); });
}

void StepModel::decode_stage(MicroBatch& mb, int layer, int stage, int moe_layer, std::int64_t step,
                             workloads::Rng& rng, LayerBreakdown& breakdown) {
  set_layer(layer);
  const int m = static_cast<int>(&mb - micro_.data());
  const bool moe = model_.is_moe_layer(layer);
  auto& phases = breakdown.layer_ns[static_cast<std::size_t>(layer)];
  switch (stage) {
    case 0: {
      timeline_.compute(mb.ready, mb.kinds[layer_local_].prep, mb.ready, {"attention_prep", layer, m});
      return;
    }
    case 1: {
      const auto& kind = mb.kinds[layer_local_];
      phases[static_cast<int>(Phase::kAttention)] += kind.slowest;
      if (moe && attention_tp_ == 1) {
        // The router follows the attention core on the same stream.
        const StreamTimeline::ChainOp ops[] = {{kind.core, {"attention", layer, m}}, {mb.router, {"router", layer, m}}};
        timeline_.compute_chain(mb.ready, ops, mb.ready);
        phases[static_cast<int>(Phase::kRouter)] += mb.router_slowest;
        return;
      }
      timeline_.compute(mb.ready, kind.core, mb.ready, {"attention", layer, m});
      if (!moe) {
        dense_mlp_after_attention(mb, phases);
        return;
      }
      tp_collective(mb, mb.group_reduce_scatter, attention_tp_, phases, "tp_reduce_scatter");
      timeline_.compute(mb.ready, mb.router, mb.ready, {"router", layer, m});
      phases[static_cast<int>(Phase::kRouter)] += mb.router_slowest;
      return;
    }
    default: break;
  }
  if (!moe) return;
  if (stage == 2) {
    phases[static_cast<int>(Phase::kSharedExpert)] += mb.shared_slowest;
    route(mb, moe_layer, step, rng, phases, breakdown);
    mb.dispatch_end = issue_dispatch(mb, true);
  } else if (stage == 3) {
    expert_half(mb, mb.dispatch_end, phases);
  } else {
    finish_combine(mb);
    if (attention_tp_ > 1) tp_collective(mb, mb.group_all_gather, attention_tp_, phases, "tp_all_gather");
  }
}

void StepModel::run_decode_layers(std::int64_t step, workloads::Rng& rng, LayerBreakdown& breakdown) {
  const int first = deployment_.first_layer(), end = deployment_.end_layer();
  const int total = (end - first) * kStages;
  // Each micro-batch's next MoE layer index, advanced as it issues S3 (the routing draw).
  int moe_next[2] = {moe_layers_before_stage(), moe_layers_before_stage()};
  layer_clock_.begin(timeline_, deployment_.ranks());
  auto issue = [&](int m, int g) {
    const int layer = first + g / kStages, stage = g % kStages;
    MicroBatch& mb = micro_[static_cast<std::size_t>(m)];
    const bool moe = model_.is_moe_layer(layer);
    decode_stage(mb, layer, stage, moe_next[m], step, rng, breakdown);
    if (moe && stage == 2) ++moe_next[m];
    // A layer's wall time ends with the second micro-batch's last stage of it (the first's next
    // two stages, issued meanwhile, count towards it).
    if (m == 1 && stage == kStages - 1) close_layer(layer, breakdown);
  };
  constexpr int kDelta = 2;
  for (int g = 0; g < std::min(kDelta, total); ++g) issue(0, g);
  for (int g = kDelta; g < total; ++g) {
    issue(0, g);
    issue(1, g - kDelta);
  }
  for (int g = std::max(0, total - kDelta); g < total; ++g) issue(1, g);
}

}  // namespace moesim::sim
