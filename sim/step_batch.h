// RankBatch: what one attention-DP rank (one rank, or one attention TP group) runs in a step:
// decode requests and prefill chunks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "calibration/cost_model.h"

namespace moesim::sim {

struct RankBatch {
  // One per decoding request: the KV length including the positions fed in this step.
  std::vector<std::int64_t> decode_kv_lengths;
  // Positions each decoding request feeds: 1, or 1 + k draft tokens under speculative decoding.
  int decode_queries = 1;
  std::vector<calibration::PrefillChunk> prefill_chunks;  // one per prefilling request
  std::int64_t sampled_tokens = 0;                        // tokens that need logits
  // Speculative decoding: one per request that drafts its next tokens after this step (the
  // decoding ones and those whose prompt completes), with its KV length.
  std::vector<std::int64_t> draft_kv_lengths;
  // Rows a CUDA graph pads the batch with (sim/runtime.h): they cost every GEMM and memory-bound
  // kernel as tokens do, are not routed to experts, and attend to nothing.
  std::int64_t padding = 0;
  // Empty, as RankBatch{}, keeping the vectors' storage for the next step's batch.
  void clear() {
    decode_kv_lengths.clear();
    decode_queries = 1;
    prefill_chunks.clear();
    sampled_tokens = 0;
    draft_kv_lengths.clear();
    padding = 0;
  }
  std::int64_t decode_tokens() const { return static_cast<std::int64_t>(decode_kv_lengths.size()) * decode_queries; }
  std::int64_t tokens() const {
    std::int64_t t = decode_tokens();
    for (const auto& c : prefill_chunks) t += c.tokens;
    return t;
  }
};

// Splits every group's batch into `micro` micro-batches: out[m * groups + g] is group g's part m.
// Decode requests (and their drafts) go round-robin, prefill chunks each to the lightest part, and
// the prompts that complete sample one token each in the parts that hold chunks. Padding rows
// are not split (callers that run graphs split them themselves).
void split_micro_batches(std::span<const RankBatch> batches, std::size_t micro, std::vector<RankBatch>& out);

}  // namespace moesim::sim
