// Per-op accounting of a Gated DeltaNet linear-attention layer (ModelSpec::linear; Qwen3-Next),
// the counterpart of layer_ops.h's attention functions for the layers that replace softmax
// attention with a recurrence over a fixed-size state.
//
// Decode runs the recurrent form: each new token decays its sequence's state, applies the delta
// rule (S += k ⊗ β(v - Sᵀk)) and reads out Sᵀq, so a step reads and writes every decoding
// sequence's whole state whatever its context length. Prefill runs the chunked form of the
// flash-linear-attention kernels (chunk_gated_delta_rule, chunks of kLinearChunk tokens): within a
// chunk, attention-like C x C products and the WY representation of the delta rule; across
// chunks, one state per chunk carried forward and written out between the kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "models/layer_ops.h"
#include "models/model_spec.h"

namespace moesim::models {

// Tokens per chunk of the chunked Gated DeltaNet kernels (flash-linear-attention's
// chunk_gated_delta_rule, BT = 64; what SGLang and vLLM run for Qwen3-Next prefill).
inline constexpr int kLinearChunk = 64;

// Projections of one linear-attention layer: q, k, v and the output gate z in one GEMM from the
// hidden state (in_proj_qkvz), beta and the decay's input (in_proj_ba, two per value head), and
// the output projection after the core.
std::vector<WeightMatmul> linear_attention_projections(const ModelSpec& m);
// Its memory-bound kernels per token: the two residual norms, the gates (beta = sigmoid(b),
// g = -exp(A) softplus(a + dt_bias)), the gated RMSNorm of the core's output by z, and the
// activation quantisation in front of FP8 (or FP4) projections.
std::vector<StreamOp> linear_attention_stream_ops(const ModelSpec& m);
// The core of one decode step of one sequence feeding `queries` tokens (1, or 1 + draft tokens
// for speculative verification, whose intermediate states are kept for rollback): the short
// convolution over the new tokens and the recurrence, reading the state once and writing it
// after each token. Independent of the context length.
Work linear_attention_decode_core(const ModelSpec& m, int queries = 1);
// The core of a prefill chunk of `chunk` new tokens after `past` processed ones: the chunked
// recurrence over ceil(chunk / kLinearChunk) chunks, reading the carried state when past > 0
// and writing the final one.
Work linear_attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk);
// Parameters of one linear-attention layer's projections and convolution.
std::int64_t linear_attention_params(const ModelSpec& m);

}  // namespace moesim::models
