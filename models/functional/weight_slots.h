// The list of every tensor a ModelSpec's decoder needs, with its shape and role: the one place
// that knows which weights exist. The random initialiser fills the slots, the checkpoint loader
// maps each slot to a tensor name of its layout (checkpoint_layouts.h), check_weights compares
// the shapes.
//
// Keys are layout-neutral: "embed", "final_norm", "lm_head"; per layer "attn_norm", "mlp_norm",
// "q", "k", "v", "o", "q_bias", "k_bias", "v_bias", "q_norm", "k_norm", "sinks" (GQA), "q_a",
// "q_a_norm", "q_b", "q", "kv_a", "kv_a_norm", "kv_b", "o" (MLA), "mlp.gate", "mlp.up",
// "mlp.down" (dense), "router", "score_bias", "expert.gate", "expert.up", "expert.down" (with
// the expert index), "shared.gate", "shared.up", "shared.down", "shared_gate" (MoE).
#pragma once

#include <string>
#include <vector>

#include "models/functional/weights.h"

namespace moesim::models::functional {

enum class WeightRole { kEmbedding, kProjection, kNorm, kBias, kRouter, kScoreBias, kSinks };

struct WeightSlot {
  std::string key;
  int layer = -1;   // -1: not in a layer
  int expert = -1;  // routed experts only
  WeightRole role = WeightRole::kProjection;
  Matrix* matrix = nullptr;  // exactly one of matrix / vector
  Vector* vector = nullptr;
  int rows = 0;  // a vector's length
  int cols = 0;  // 0 for vectors

  std::string describe() const;  // "layer 3 expert 5 expert.gate", "embed"
};

// Sizes `weights.layers` to the spec's layer count and lists every slot, in a fixed order
// (layers ascending; within a layer attention, then MLP or MoE).
std::vector<WeightSlot> weight_slots(const ModelSpec& spec, DecoderWeights& weights);

// "[4, 8]" for a matrix, "[4]" for a vector (cols 0).
std::string shape_text(int rows, int cols);

}  // namespace moesim::models::functional
