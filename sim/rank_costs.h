// The compute cost of one rank's batch for each sub-block of a layer (docs/design.md §1).
//
// Attention (norms, projections, attention core over each request's KV) and the local MLPs cost
// the same in every layer of a kind, so they are computed once per step per rank.
//
// Under tensor parallelism (sim/step_model.h) a rank runs its attention shard
// (models/parallel_shard.h: heads / tp, dense MLP intermediate / tp) over its attention group's
// whole batch, while its router and shared expert see only the tokens the MoE hands it
// (`moe_tokens`), the shared experts split over `shared_split` ranks under MoE TP. Speculative
// verification feeds decode_queries positions per decoding request: every GEMM sees them all, the
// attention core reads each request's cache once (models::attention_verify_core).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"
#include "models/model_spec.h"
#include "sim/step_batch.h"

namespace moesim::topology {
enum class Direction;  // topology/all_to_all.h
}  // namespace moesim::topology

namespace moesim::sim {

struct RankCosts {
  double attention = 0;  // ns, one full-attention layer
  // ns, one layer of the model's other attention kind, if any: a local-attention (sliding or
  // chunked window) layer, or a linear-attention (Gated DeltaNet) layer.
  double attention_local = 0;
  double attention_prep = 0;        // ns, the part of `attention` before the core in a decode step
                                    // (models::WeightMatmul::after_core)
  double attention_local_prep = 0;  // the same for `attention_local` (equal for a local window)
  double dense_mlp = 0;
  double shared = 0;
  double router = 0;
  double lm_head = 0;
};

// The first layer of the model's other attention kind (a local window or linear attention), or -1
// if every layer attends to the full context with softmax attention.
int first_local_layer(const models::ModelSpec& model);
// Whether `layer` has the other attention kind (a local window or linear attention).
inline bool local_attention_layer(const models::ModelSpec& model, int layer) {
  return model.attention_window(layer) > 0 || model.is_linear_layer(layer);
}

struct RankCostShape {
  const models::ModelSpec* attention = nullptr;  // the rank's attention shard; null: the whole model
  std::int64_t moe_tokens = -1;                  // tokens through router and shared expert; -1: the batch's
  int shared_split = 1;                          // shared experts' intermediate split over this many ranks
};

RankCosts rank_costs(const models::ModelSpec& model, const calibration::CostModel& cost, const RankBatch& batch);
RankCosts rank_costs(const models::ModelSpec& model, const calibration::CostModel& cost, const RankBatch& batch,
                     const RankCostShape& shape);

// rank_costs in two parts: what depends on a batch's token counts alone (every kernel but the
// attention cores; `attention` and `attention_local` hold the per-layer part the cores add to),
// and the batch's attention cores added to it.
RankCosts token_costs(const models::ModelSpec& model, const calibration::CostModel& cost, std::int64_t tokens,
                      std::int64_t moe_tokens, std::int64_t sampled_tokens, const RankCostShape& shape);
RankCosts with_attention_cores(RankCosts token_part, const models::ModelSpec& model, const calibration::CostModel& cost,
                               const RankBatch& batch, const RankCostShape& shape);

// rank_costs for many batches of one model, cost model and shape: the token-count part is kept
// for the last few distinct counts (a decode step's ranks hold nearly the same number of
// requests, step after step), so only the attention cores are costed per batch. The same
// results as rank_costs, bit for bit.
class RankCostMemo {
 public:
  RankCosts operator()(const models::ModelSpec& model, const calibration::CostModel& cost, const RankBatch& batch,
                       const RankCostShape& shape = {});

 private:
  struct Key {
    std::int64_t tokens = -1, moe_tokens = -1, sampled = -1;
    const models::ModelSpec* attention = nullptr;
    int shared_split = 1;
    bool operator==(const Key&) const = default;
  };
  struct Entry {
    Key key;
    RankCosts costs;
  };
  static constexpr std::size_t kEntries = 16;
  std::vector<Entry> entries_;
  std::size_t next_ = 0;
};

// Grouped GEMM of a rank's local experts (gate/up, activation, down) for the given counts; under
// MoE TP (`tp` > 1) each expert's intermediate is split tp ways and the rank computes its slice
// for every row.
double expert_gemm_ns(const models::ModelSpec& model, const calibration::CostModel& cost,
                      std::span<const std::int64_t> counts, int tp = 1);

// expert_gemm_ns for every rank of a layer at once (the cost model shares the tile choice across
// ranks): rank r's counts are slot_counts[r·per_rank, (r+1)·per_rank) and out[r] gets exactly
// expert_gemm_ns of them. `scratch` is working space.
void expert_gemm_times(const models::ModelSpec& model, const calibration::CostModel& cost,
                       std::span<const std::int64_t> slot_counts, std::size_t per_rank, std::span<double> out,
                       std::vector<double>& scratch, int tp = 1);

// DeepEP low-latency kernels occupy every SM while they pack and send and while they receive
// and unpack, and none while the data is in flight (LMSYS, "Deploying DeepSeek with PD
// Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs", 2025: decode
// communication kernels "either fully utilize SMs (during send/receive) or none (during inflight
// waiting)"). Each phase is one memory-bound kernel on the rank's compute stream over the bytes
// it moves: dispatch send reads the rank's tokens (activation dtype) and writes one message per
// token; dispatch receive copies every received message into the expert-major layout; combine
// send copies every expert output into the send buffer; combine receive reads each token's
// top-k results and writes the weighted sum.
struct LowLatencyPhases {
  double dispatch_send = 0, dispatch_recv = 0, combine_send = 0, combine_recv = 0;  // ns
};
// One rank's low-latency kernel around an all-to-all as DeepEP's tests time it without the
// receive hook: its send kernel, the transfer and its receive kernel back to back (ns).
struct LowLatencyKernel {
  double send = 0, transfer = 0, receive = 0;
  double total() const { return send + transfer + receive; }
};
LowLatencyKernel low_latency_kernel(const LowLatencyPhases& p, topology::Direction direction, double transfer_ns);

LowLatencyPhases low_latency_phases(const models::ModelSpec& model, const calibration::CostModel& cost,
                                    std::int64_t tokens, std::int64_t received_pairs, double dispatch_bytes_per_token,
                                    double combine_bytes_per_token);
// Its two halves: the phases over the rank's own tokens (dispatch send, combine receive; the same
// in every layer of a step) and those over the pairs it receives (dispatch receive, combine send).
void low_latency_token_phases(const models::ModelSpec& model, const calibration::CostModel& cost, std::int64_t tokens,
                              double dispatch_bytes_per_token, double combine_bytes_per_token, LowLatencyPhases& p);
// low_latency_pair_phases for every rank of a layer at once: dispatch_recv[r] and combine_send[r]
// get exactly its values for received_pairs[r]; `scratch` is working space.
void low_latency_pair_phase_times(const calibration::CostModel& cost, std::span<const std::int64_t> received_pairs,
                                  double dispatch_bytes_per_token, double combine_bytes_per_token,
                                  std::span<double> dispatch_recv, std::span<double> combine_send,
                                  std::vector<double>& scratch);
void low_latency_pair_phases(const calibration::CostModel& cost, std::int64_t received_pairs,
                             double dispatch_bytes_per_token, double combine_bytes_per_token, LowLatencyPhases& p);

}  // namespace moesim::sim
