// The functional decoder: a real forward pass of a decoder-only MoE transformer described by a
// ModelSpec, on the CPU in float32 (Eigen), with one KV cache per sequence.
//
// Per layer: h += attention(rms_norm(h)); then h += mlp(rms_norm(h)) where mlp is the dense
// SwiGLU, or the MoE block (router → routed experts as grouped GEMMs → weighted combine, plus
// the shared experts). Then the final norm and the LM head (the embedding when tied).
//
// forward() runs one step of a batch: each entry appends tokens to one sequence. A prefill is an
// entry carrying a whole prompt; a decode step gives each sequence its one newest token. Only
// the new tokens pass through the layers (docs/design.md §1): history positions are read from the
// cache by attention and never re-enter a projection, MLP or MoE. ForwardResult::work counts
// what ran so tests can assert exactly that.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/functional/experts.h"
#include "models/functional/kv_cache.h"
#include "models/functional/rope.h"
#include "models/functional/router.h"
#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct BatchEntry {
  int sequence = 0;
  std::vector<int> tokens;  // at least one
};

// Rows processed by one forward pass, summed over layers.
struct StepWork {
  std::int64_t tokens = 0;          // new tokens in the batch
  std::int64_t attention_rows = 0;  // rows through q/k/v projections
  std::int64_t dense_rows = 0;      // rows through dense MLPs
  std::int64_t routed_rows = 0;     // rows through routers
  ExpertWork experts;               // token-expert pairs, expert GEMM groups, shared-expert rows
};

struct ForwardResult {
  Matrix logits;                 // one row per entry (its last token), or per token with all_logits
  std::vector<Routing> routing;  // per MoE layer; rows in batch order
  StepWork work;
};

class Decoder {
 public:
  // Throws ModelError when the weights do not fit the spec (check_weights).
  Decoder(ModelSpec spec, DecoderWeights weights);

  const ModelSpec& spec() const { return spec_; }
  int add_sequence();
  int sequence_length(int sequence) const;
  std::int64_t cache_bytes() const;
  // Throws ModelError for a token outside the vocabulary, an unknown or repeated sequence, or an
  // empty entry.
  ForwardResult forward(std::span<const BatchEntry> batch, bool all_logits = false);

 private:
  ModelSpec spec_;
  DecoderWeights w_;
  RopeTable rope_;
  std::vector<SequenceCache> sequences_;
};

}  // namespace moesim::models::functional
