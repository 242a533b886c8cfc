// Attention-core work of a whole batch (sums of the per-request figures in models/layer_ops.h),
// shared by every cost model.
#pragma once

#include <cstdint>
#include <span>

#include "calibration/cost_model.h"
#include "models/layer_ops.h"

namespace moesim::calibration {

inline models::Work decode_attention_work(const models::ModelSpec& model, std::span<const std::int64_t> kv_lengths) {
  models::Work total;
  for (auto len : kv_lengths) {
    const auto w = models::attention_decode_core(model, len);
    total.flops += w.flops;
    total.bytes += w.bytes;
  }
  return total;
}

inline models::Work prefill_attention_work(const models::ModelSpec& model, std::span<const PrefillChunk> chunks) {
  models::Work total;
  for (const auto& c : chunks) {
    const auto w = models::attention_prefill_core(model, c.past, c.tokens);
    total.flops += w.flops;
    total.bytes += w.bytes;
  }
  return total;
}

}  // namespace moesim::calibration
