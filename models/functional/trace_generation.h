// Routing-trace generation with the functional decoder: the prompts are prefilled together in
// one forward pass, then decoded together one token per sequence per step, sampling greedily
// or with a temperature. Every forward pass is one trace step (models/routing_trace.h) with each
// MoE layer's expert ids and router weights for every token of the batch: step 0 is the
// prefill (the prompts' tokens, prompt by prompt), steps 1 .. max_new_tokens - 1 are decode
// steps (one token per prompt). The last sampled token is not fed back, so a run has exactly
// max_new_tokens steps and generates max_new_tokens tokens per prompt.
#pragma once

#include <cstdint>
#include <vector>

#include "models/functional/decoder.h"
#include "models/routing_trace.h"

namespace moesim::models::functional {

struct GenerationOptions {
  int max_new_tokens = 16;  // >= 1
  double temperature = 0;   // 0: greedy
  std::uint64_t seed = 1;   // the sampling stream
};

struct Generation {
  RoutingTrace trace;
  std::vector<std::vector<int>> outputs;  // generated tokens, per prompt
  std::int64_t prefill_tokens = 0;
  std::int64_t decode_tokens = 0;  // tokens run through decode steps
};

// Throws ModelError when the model has no MoE layer, more than 65535 experts, or a prompt is
// empty; the decoder's own errors for bad tokens.
Generation generate_trace(Decoder& decoder, const std::vector<std::vector<int>>& prompts,
                          const GenerationOptions& options);

}  // namespace moesim::models::functional
