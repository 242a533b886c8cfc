// RankBatch: what one rank runs in a step (decode tokens and prefill chunks).
#pragma once

#include <cstdint>
#include <vector>

#include "calibration/cost_model.h"

namespace moesim::sim {

struct RankBatch {
  std::vector<std::int64_t> decode_kv_lengths;           // one per decode token
  std::vector<calibration::PrefillChunk> prefill_chunks;  // one per prefilling request
  std::int64_t sampled_tokens = 0;                        // tokens that need logits
  std::int64_t tokens() const {
    std::int64_t t = static_cast<std::int64_t>(decode_kv_lengths.size());
    for (const auto& c : prefill_chunks) t += c.tokens;
    return t;
  }
};

}  // namespace moesim::sim
