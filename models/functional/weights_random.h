// Deterministic random weights for a ModelSpec: the same spec and options give the same bits on
// every platform (each tensor draws from its own splitmix64 stream, seeded by the seed and the
// tensor's name, so adding a tensor never shifts another's values).
//
// Values are uniform with mean 0 and standard deviation: 1 for the embedding; 1/sqrt(fan_in) for
// projections (activations stay O(1) through the layers); 0.1 for q/k/v biases; 1 (constant)
// for norm weights; 0 for attention sinks and DeepSeek's score-correction bias. Two knobs shape
// the routing:
//   router_logit_std  the standard deviation of a router logit's token-dependent part (the
//                     router matrix has std router_logit_std / sqrt(hidden) and its input is
//                     RMS-normalised): larger means sharper, more token-specific choices —
//                     the inverse of a router temperature;
//   expert_bias_std   the standard deviation of a per-layer, per-expert offset added to the
//                     logits (MoeWeights::logit_bias): larger means some experts are hot for
//                     every token. 0 gives routing balanced in expectation.
#pragma once

#include <cstdint>

#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct RandomWeightOptions {
  std::uint64_t seed = 1;
  double router_logit_std = 1.0;
  double expert_bias_std = 0.5;
};

DecoderWeights random_weights(const ModelSpec& spec, const RandomWeightOptions& options = {});

// Parameters the functional decoder holds for the spec (every weight slot; the embedding and a
// separate LM head included), without allocating them.
std::int64_t decoder_parameters(const ModelSpec& spec);

}  // namespace moesim::models::functional
