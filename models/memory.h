// Per-rank memory plan of a deployment: weights, activations, communication buffers, and what
// is left for the KV cache (docs/design.md §1, §4).
//
// Weights: attention split over attention TP as models/parallel_shard.h describes (MLA's latent
// down-projections replicated, per-head projections split), dense MLPs split over attention TP
// (Megatron-LM), routed experts split over EP (ceil(slots / ep) per MoE layer) and each expert
// over MoE TP (intermediate / moe_tp), shared experts split over `shared_expert_split` ranks,
// routers replicated, in the model's expert dtype for routed experts. FP8 weights carry one
// FP32 scale per 128×128 block (DeepSeek-V3's block quantisation), FP4 weights one 8-bit scale
// per 32 values (OCP MXFP4, as gpt-oss ships its experts); embedding and LM head stay in the
// activation dtype and are replicated. With pipeline stages a rank holds only its stage's
// layers [layer_begin, layer_end): the input embedding on the first stage, the LM head (and the
// MTP modules and draft model of speculative decoding) on the last; tied embeddings are one
// matrix unless the first and last stage differ, when each holds a copy (Megatron-LM). MTP modules
// are loaded only when asked for. Activations and all-to-all buffers are sized for the per-rank
// token budget of one step; under MoE TP every rank gathers the tokens of `moe_token_groups`
// attention groups instead of dispatching them.
//
// Attention-FFN disaggregation splits every layer between two kinds of rank (MemorySide): an
// attention rank holds all but the experts (routers included) and the KV cache, with buffers for
// its tokens going out and their top-k results coming back; an expert rank holds its EP share of
// the routed experts and a whole copy of the shared experts, and no KV cache (its plan's
// kv_bytes is what is left over; token_budget_per_rank is then the tokens it receives per step).
//
// KV cache per token on a rank: its stage's layers (plus loaded MTP modules and a draft model's
// layers) of its attention shard: GQA caches kv_heads / tp heads, MLA the whole latent (replicated
// over the TP group). kv_capacity_tokens divides the KV budget by those bytes; with local
// attention that is a lower bound on what fits, and kv_capacity_requests() gives the exact
// number of requests of a given context length (ModelSpec::kv_bytes_for_context) for a plan of
// the whole, unsplit model. Linear-attention layers (Qwen3-Next's Gated DeltaNet) cache no tokens:
// each request holds their fixed state instead (state_bytes_per_request, the stage's linear layers
// of its attention shard), which the scheduler takes from the same pool in token-sized blocks
// (state_tokens_per_request), as vLLM's hybrid KV-cache manager and SGLang's mamba pool reserve
// it per running request.
#pragma once

#include <cstdint>
#include <string>

#include "models/model_spec.h"

namespace moesim::models {

// Which part of every layer a rank holds: all of it, or one side of attention-FFN
// disaggregation (sim/afd_step.h): attention (attention, dense layers, routers, embedding, LM
// head and the KV cache) or experts (each MoE layer's routed expert slots and shared experts).
enum class MemorySide { kWhole, kAttention, kExperts };

struct MemoryOptions {
  MemorySide side = MemorySide::kWhole;
  int ep = 1;
  int redundant_experts = 0;  // extra expert slots per MoE layer over the EP group (EPLB)
  int attention_tp = 1;
  int moe_tp = 1;               // each routed expert's intermediate split over this many ranks
  int shared_expert_split = 1;  // shared experts split over this many ranks
  int moe_token_groups = 1;     // MoE TP: attention groups whose tokens every rank gathers
  int layer_begin = 0;          // pipeline stage: the layers [layer_begin, layer_end) on this rank
  int layer_end = -1;           // -1: through the last layer
  std::int64_t token_budget_per_rank = 4096;
  double capacity_bytes = 0;
  // CUDA context, library workspaces and allocator slack. Assumption: 2 GiB.
  double runtime_reserve_bytes = 2.0 * 1024 * 1024 * 1024;
  bool load_mtp = false;  // hold the MTP modules too (MTP speculative decoding), on the last stage
  // A dense draft model for speculative decoding, held on the last stage (attention and MLP
  // split over attention TP); null: none.
  const ModelSpec* draft_model = nullptr;
};

struct MemoryPlan {
  double capacity_bytes = 0;
  double weight_bytes = 0;
  double routed_expert_bytes = 0;  // part of weight_bytes
  double activation_bytes = 0;
  double comm_buffer_bytes = 0;
  double runtime_reserve_bytes = 0;
  double kv_bytes = 0;            // what is left for the KV cache (negative: does not fit)
  double kv_bytes_per_token = 0;  // KV cache bytes one token takes on this rank
  std::int64_t kv_capacity_tokens = 0;
  double state_bytes_per_request = 0;  // linear-attention state a request holds on this rank
  // That state in tokens of kv_bytes_per_token, rounded up (0 without linear attention).
  std::int64_t state_tokens_per_request() const {
    if (state_bytes_per_request <= 0 || kv_bytes_per_token <= 0) return 0;
    const double t = state_bytes_per_request / kv_bytes_per_token;
    const auto whole = static_cast<std::int64_t>(t);
    return static_cast<double>(whole) < t ? whole + 1 : whole;
  }
  bool fits() const { return kv_bytes > 0 && kv_capacity_tokens > 0; }
  // A multi-line table (bytes in GiB) for reports and out-of-memory errors.
  std::string table() const;
};

MemoryPlan plan_rank_memory(const ModelSpec& m, const MemoryOptions& options);

// Storage bytes per weight, block scales included.
double weight_bytes_per_param(DType t);

// Requests of `context_tokens` positions each whose KV cache fits in plan.kv_bytes.
std::int64_t kv_capacity_requests(const ModelSpec& m, const MemoryPlan& plan, std::int64_t context_tokens);

}  // namespace moesim::models
