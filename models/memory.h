// Per-rank memory plan of a deployment: weights, activations, communication buffers, and what
// is left for the KV cache (DESIGN.md §1, §4).
//
// Weights: attention split over attention TP (replicated across DP), dense MLPs, shared experts,
// routers and the (untied) embedding and LM head replicated on every rank, routed experts split
// over EP (ceil(experts / ep) per MoE layer), in the model's expert dtype. FP8 weights carry one
// FP32 scale per 128×128 block (DeepSeek-V3's block quantisation), FP4 weights one 8-bit scale
// per 32 values (OCP MXFP4, as gpt-oss ships its experts); embedding and LM head (one matrix when
// tied) stay in the activation dtype. MTP modules are loaded only when asked for (speculative
// decoding). Activations and all-to-all buffers are sized for the per-rank token budget of one
// step.
//
// kv_capacity_tokens divides the KV budget by the bytes of a token cached in every layer; with
// local attention that is a lower bound on what fits, and kv_capacity_requests() gives the exact
// number of requests of a given context length (ModelSpec::kv_bytes_for_context).
#pragma once

#include <cstdint>
#include <string>

#include "models/model_spec.h"

namespace moesim::models {

struct MemoryOptions {
  int ep = 1;
  int redundant_experts = 0;  // extra expert slots per MoE layer over the EP group (EPLB)
  int attention_tp = 1;
  std::int64_t token_budget_per_rank = 4096;
  double capacity_bytes = 0;
  // CUDA context, library workspaces and allocator slack. Assumption: 2 GiB.
  double runtime_reserve_bytes = 2.0 * 1024 * 1024 * 1024;
  bool load_mtp = false;  // hold the MTP modules too (MTP speculative decoding)
};

struct MemoryPlan {
  double capacity_bytes = 0;
  double weight_bytes = 0;
  double routed_expert_bytes = 0;  // part of weight_bytes
  double activation_bytes = 0;
  double comm_buffer_bytes = 0;
  double runtime_reserve_bytes = 0;
  double kv_bytes = 0;             // what is left for the KV cache (negative: does not fit)
  std::int64_t kv_capacity_tokens = 0;
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
