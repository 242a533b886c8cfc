// The routed experts of one MoE layer, batched: the batch's token-expert pairs are grouped by
// expert (a counting sort), each expert gathers its tokens into one matrix and runs one SwiGLU
// over it (the CPU analogue of a grouped GEMM: never one GEMM per token per expert), and the
// outputs are scattered back, each scaled by its router weight and summed per token. The shared
// experts (one SwiGLU of their summed width) see every token; with shared_expert_gate their
// output is scaled by sigmoid(x·gateᵀ) per token.
#pragma once

#include <cstdint>

#include "models/functional/router.h"
#include "models/functional/tensor.h"
#include "models/functional/weights.h"

namespace moesim::models::functional {

// What the layer computed: token-expert pairs, expert GEMM groups (one per expert with tokens)
// and rows through the shared experts.
struct ExpertWork {
  std::int64_t pairs = 0;
  std::int64_t groups = 0;
  std::int64_t shared_rows = 0;
};

Matrix run_experts(const MoeWeights& w, const Matrix& x, const Routing& routing, ExpertWork& work);

}  // namespace moesim::models::functional
