// Per-op accounting of a layer: the weight matmuls of each sub-block, the attention core's FLOPs
// and bytes, and parameter totals (docs/design.md §1).
//
// A weight matmul multiplies m activation rows [m × k] by a weight [k × n]; callers choose m (the
// tokens in the batch). Attention-core work depends on the KV lengths, so it is returned per
// query token / per chunk. MLA follows DeepSeek-V2 §2.1 and the absorbed decode form used by
// FlashMLA: during decode W_UK is folded into the query and W_UV into the output, so the core
// reads only the cached latent; during prefill the latent is expanded with kv_b for the context.
//
// Local attention (ModelSpec::window): the `layer` overloads cap the attended span at the layer's
// window (sliding: the last `size` positions; chunked: the positions of the current chunk); the
// overloads without a layer describe a full-attention layer. Parameter counts ignore biases and
// norm weights (under 0.1 % for every preset).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "models/model_spec.h"

namespace moesim::models {

// after_core: the share of an attention op's work that runs after the attention core in a decode
// step, the rest before it (the two attention stages of the two-batch decode schedule,
// sim/overlap.h): the o-projection, its input's quantisation and the post-attention norm come
// after; in MLA's absorbed decode form kv_b_proj is W_UK on the query before the core and W_UV on
// its output after, split by their widths (qk_nope_head_dim : v_head_dim).
struct WeightMatmul {
  std::string_view name;
  std::int64_t k = 0;     // input width
  std::int64_t n = 0;     // output width
  double after_core = 0;  // attention projections only, see above
  std::int64_t params() const { return k * n; }
};

struct Work {
  double flops = 0;
  double bytes = 0;
};

// Attention projections of one layer (q/kv down and up projections, o-proj).
std::vector<WeightMatmul> attention_projections(const ModelSpec& m);
// The memory-bound kernels of a layer besides its GEMMs and attention core, one launch each per
// layer for the whole batch, with the bytes each moves per token through HBM. Attention block:
// the fused residual-add + RMSNorm before attention and before the MLP, q/k (MLA: q and kv
// latent) norms, RoPE, the KV-cache write, and the per-token activation quantisation in front of
// each FP8 (or FP4) projection GEMM's distinct input. MoE block: the router's top-k selection and
// the add of the routed and shared outputs. (MLP activations, SiLU(gate)·up, are costed with the
// MLP.) This is the decode kernel sequence of DeepSeek-style inference engines (SGLang, vLLM).
struct StreamOp {
  std::string_view name;
  double bytes_per_token = 0;
  double after_core = 0;  // attention ops only (see WeightMatmul)
};
std::vector<StreamOp> attention_stream_ops(const ModelSpec& m);
std::vector<StreamOp> moe_stream_ops(const ModelSpec& m);
// Bytes per token of quantising one activation row of `width` values for a low-precision GEMM
// with weights in `weights`: read in the activation dtype, write one byte per value plus an FP32
// scale per 128 (FP8 and MXFP4 GEMMs) or one per token (INT8 W8A8), or half a byte plus an E4M3
// scale per 16 (NVFP4).
double activation_quant_bytes(const ModelSpec& m, std::int64_t width, DType weights);
// Whether GEMMs with weights in `dtype` quantise their activations first (FP8, INT8, MXFP4, NVFP4).
bool quantises_activations(DType dtype);

// Kernels layer `layer` launches for one (micro-)batch, counted from the op lists the costs use:
// the attention stream ops, projections and core (a linear-attention layer's: its stream ops,
// projections, convolution and recurrence, models/linear_attention.h); a dense layer's MLP (gate/up, activation,
// down, and the activations' quantisations); an MoE layer's router GEMM, its stream ops, the
// shared experts' MLP, the grouped GEMMs' MLP, and `comm_kernels` for its dispatch and combine.
int layer_kernels(const ModelSpec& m, int layer, int comm_kernels);

// SwiGLU MLP: fused gate+up [hidden → 2·inter] then down [inter → hidden].
WeightMatmul mlp_gate_up(const ModelSpec& m, std::int64_t intermediate);
WeightMatmul mlp_down(const ModelSpec& m, std::int64_t intermediate);
WeightMatmul router(const ModelSpec& m);
WeightMatmul lm_head(const ModelSpec& m);

// Positions the newest token attends to in layer `layer` when the request holds `kv_len`
// positions (including itself): kv_len for full attention, min(kv_len, size) for a sliding
// window, ((kv_len - 1) mod size) + 1 for chunked attention.
std::int64_t effective_kv_len(const ModelSpec& m, int layer, std::int64_t kv_len);

// Attention core for one decode token attending to `kv_len` cached positions (including itself).
Work attention_decode_core(const ModelSpec& m, std::int64_t kv_len);
Work attention_decode_core(const ModelSpec& m, std::int64_t kv_len, int layer);
// The summed attention_decode_core of decode tokens with these cache lengths, taken in O(1) per
// token, or none when it might differ from adding them one by one (see layer_ops.cpp): DSA's
// sparse core (not affine in the length), work that is not in whole FLOPs and bytes, or sums
// from 2^53 on. Where it is given, it is equal to the one-by-one sum to the bit.
std::optional<Work> attention_decode_total(const ModelSpec& m, std::span<const std::int64_t> kv_lens);
// The DSA indexer's part of attention_decode_core (zero for dense attention): it scores all
// kv_len cached positions, so it grows with the context while the sparse core stops at top_k.
Work attention_decode_indexer(const ModelSpec& m, std::int64_t kv_len);
// Attention core for `queries` consecutive query tokens of one request (speculative-decoding
// verification: the newest token and the draft tokens after it) whose cache holds `kv_len`
// positions including them: query j attends causally up to its own position, and the cache is
// read once for all of them (FlashMLA and FlashInfer process a request's queries in one pass
// over its cache). queries = 1 is attention_decode_core.
Work attention_verify_core(const ModelSpec& m, std::int64_t kv_len, int queries);
// Attention core for a prefill chunk of `chunk` new tokens after `past` cached ones (causal).
Work attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk);
Work attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk, int layer);
// The same chunk on MLA's absorbed path (each new token attends as a decode token does, over the
// latent cache, which is read once; no per-head expansion of the prefix): what engines run for
// short extends after long cached prefixes. Other attention kinds: attention_prefill_core.
Work attention_prefill_absorbed_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk);
// Sums of the per-layer figures over every layer of the model (linear-attention layers with
// their fixed-state cores, models/linear_attention.h).
Work attention_decode_all_layers(const ModelSpec& m, std::int64_t kv_len);
Work attention_prefill_all_layers(const ModelSpec& m, std::int64_t past, std::int64_t chunk);

struct ParameterCount {
  std::int64_t attention = 0;       // all layers
  std::int64_t dense_mlp = 0;       // all dense layers
  std::int64_t routed_experts = 0;  // all MoE layers
  std::int64_t shared_experts = 0;
  std::int64_t routers = 0;
  std::int64_t embedding = 0;  // input embedding + LM head (one matrix when tied)
  std::int64_t total() const { return attention + dense_mlp + routed_experts + shared_experts + routers + embedding; }
  // Per token: everything but the routed experts not selected and the input-embedding rows not
  // looked up (DeepSeek-V3 report: 37 B; V2-Lite's 2.4 B rules out counting the whole table).
  std::int64_t activated = 0;
  // MTP modules (DeepSeek-V3 §2.2), outside total(): per module one transformer block shaped
  // like the model's MoE layers (a dense one for dense models) plus the [2h → h] projection; the
  // embedding and output head are shared with the main model.
  std::int64_t mtp = 0;
};

ParameterCount count_parameters(const ModelSpec& m);
std::int64_t expert_params(const ModelSpec& m);  // one routed expert of one layer

}  // namespace moesim::models

namespace moesim::models {

// Bytes one token occupies in an all-to-all message (DeepEP's layout): the hidden state in the
// dispatch dtype, plus for FP8 one FP32 scale per 128 values, plus the token's top-k expert ids
// (int32) and router weights (FP32). Combine sends the expert output back in the combine dtype.
double dispatch_bytes_per_token(const ModelSpec& m);
// A dispatch payload format (the registry payload_formats(), listed in this order).
enum class PayloadFormat { kModel, kBf16, kFp8, kMxfp8, kNvfp4 };
// The same with the dispatch payload in `format`: model (as above), bf16, fp8 (one FP32 scale
// per 128 values, as DeepEP), mxfp8 (one E8M0 scale per 32 values, OCP MX), nvfp4 (FP4 with one
// E4M3 scale per 16 values); the top-k ids and weights ride along. TensorRT-LLM's NVLinkOneSided
// blog counts 7,392 (MXFP8) and 4,032 (NVFP4) payload bytes per token at hidden 7168, which these
// give.
double dispatch_bytes_per_token(const ModelSpec& m, PayloadFormat format);
struct PayloadFormatInfo {
  std::string_view name;
  std::string_view description;
  PayloadFormat value;
};
std::vector<PayloadFormatInfo> payload_formats();
// The format named `name`; throws ModelError "unknown dispatch payload 'x' (valid: ...)".
PayloadFormat payload_format(std::string_view name);
double combine_bytes_per_token(const ModelSpec& m);

}  // namespace moesim::models
