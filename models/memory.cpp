#include "models/memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/layer_ops.h"
#include "models/linear_attention.h"
#include "models/parallel_shard.h"

namespace moesim::models {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

double weight_bytes_per_param(DType t) {
  const double b = bytes_per_element(t);
  if (t == DType::kFp8) return b + 4.0 / (128.0 * 128.0);  // FP32 scale per 128x128 block
  if (t == DType::kMxfp4) return b + 1.0 / 32.0;           // E8M0 scale per 32 values (OCP MX)
  if (t == DType::kNvfp4) return b + 1.0 / 16.0;           // E4M3 scale per 16 values (NVFP4)
  return b;
}

std::int64_t kv_capacity_requests(const ModelSpec& m, const MemoryPlan& plan, std::int64_t context_tokens) {
  const double per_request = m.kv_bytes_for_context(context_tokens);
  if (plan.kv_bytes <= 0 || per_request <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(plan.kv_bytes / per_request));
}

namespace {

// Parameters of one rank's share of one layer's MLP (dense, or MoE with its routed, shared and
// router weights), split by the options' degrees; routed experts counted apart.
struct LayerParams {
  double replicated = 0;  // in weight_dtype
  double routed = 0;      // in the expert dtype
};

LayerParams mlp_params(const ModelSpec& m, const ModelSpec& shard, bool moe, std::int64_t experts_per_rank,
                       const MemoryOptions& o) {
  LayerParams p;
  if (o.side == MemorySide::kExperts && !moe) return p;  // dense layers stay with attention
  if (!moe) {
    p.replicated = static_cast<double>(mlp_gate_up(shard, shard.dense_intermediate).params() +
                                       mlp_down(shard, shard.dense_intermediate).params());
    return p;
  }
  const double expert = static_cast<double>(expert_params(m));
  const double router_params = static_cast<double>(router(m).params());
  if (o.side == MemorySide::kAttention) {
    p.replicated = router_params;  // the experts live on the other side
    return p;
  }
  p.routed = expert * static_cast<double>(experts_per_rank) / o.moe_tp;
  p.replicated = expert * m.shared_experts / o.shared_expert_split;
  if (o.side == MemorySide::kWhole) p.replicated += router_params;
  return p;
}

}  // namespace

MemoryPlan plan_rank_memory(const ModelSpec& m, const MemoryOptions& o) {
  const double wb = weight_bytes_per_param(m.weight_dtype);
  const double eb = weight_bytes_per_param(m.expert_dtype());
  const double ab = bytes_per_element(m.activation_dtype);
  const int begin = std::max(0, o.layer_begin);
  const int end = o.layer_end < 0 ? m.num_layers : std::min(o.layer_end, m.num_layers);
  const bool first = begin == 0, last = end == m.num_layers;
  const ModelSpec shard = attention_shard(m, o.attention_tp);
  MemoryPlan plan;
  plan.capacity_bytes = o.capacity_bytes;
  const std::int64_t experts_per_rank =
      m.routed_experts == 0 ? 0 : (m.routed_experts + o.redundant_experts + o.ep - 1) / o.ep;
  double attention_layer = 0;
  for (const auto& op : attention_projections(shard)) attention_layer += static_cast<double>(op.params());

  const double linear_layer = m.linear.enabled() ? static_cast<double>(linear_attention_params(shard)) : 0.0;

  double replicated = 0, routed = 0;
  int caching = 0, linear = 0;  // the stage's token-caching and linear-attention layers
  const bool experts_only = o.side == MemorySide::kExperts;
  for (int l = begin; l < end; ++l) {
    const LayerParams p = mlp_params(m, shard, m.is_moe_layer(l), experts_per_rank, o);
    const bool is_linear = m.is_linear_layer(l);
    if (!experts_only) replicated += is_linear ? linear_layer : attention_layer;
    replicated += p.replicated;
    routed += p.routed;
    if (!experts_only) (is_linear ? linear : caching) += 1;
  }
  // A loaded MTP module (DeepSeek-V3 §2.2) is one more block shaped like the model's MoE layers
  // (a dense one for dense models) plus its [2h -> h] projection; it shares embedding and head.
  const int mtp = o.load_mtp && last ? m.mtp_layers : 0;
  for (int i = 0; i < mtp; ++i) {
    const LayerParams p = mlp_params(m, shard, m.routed_experts > 0, experts_per_rank, o);
    replicated += attention_layer + p.replicated + 2.0 * m.hidden * m.hidden;
    routed += p.routed;
  }
  const double table = static_cast<double>(m.vocab) * m.hidden;
  double embedding = m.tie_embeddings && first && last ? table : table * ((first ? 1 : 0) + (last ? 1 : 0));
  if (experts_only) embedding = 0;
  plan.routed_expert_bytes = routed * eb;
  plan.weight_bytes = replicated * wb + embedding * ab + plan.routed_expert_bytes;

  double per_token = shard.kv_bytes_per_token_per_layer() * (caching + mtp);
  plan.state_bytes_per_request = shard.linear_state_bytes_per_layer() * linear;
  if (o.draft_model != nullptr && last) {
    const ModelSpec& d = *o.draft_model;
    const ModelSpec dshard = attention_shard(d, o.attention_tp);
    double draft = 0;
    for (const auto& op : attention_projections(dshard)) draft += static_cast<double>(op.params());
    draft = draft * d.num_layers + static_cast<double>(mlp_gate_up(dshard, dshard.dense_intermediate).params() +
                                                       mlp_down(dshard, dshard.dense_intermediate).params()) *
                                       d.num_dense_layers();
    const double dtable = static_cast<double>(d.vocab) * d.hidden * (d.tie_embeddings ? 1 : 2);
    plan.weight_bytes +=
        draft * weight_bytes_per_param(d.weight_dtype) + dtable * bytes_per_element(d.activation_dtype);
    per_token += dshard.kv_bytes_per_token_per_layer() * d.num_layers;
  }

  const double budget = static_cast<double>(o.token_budget_per_rank);
  const double inter = std::max(shard.dense_intermediate, m.moe_intermediate * std::max(1, m.shared_experts));
  // Live activations of one layer: residual, normed input, attention output, MLP intermediate.
  plan.activation_bytes = budget * ab * (4.0 * m.hidden + 2.0 * inter);
  if (m.routed_experts > 0 && o.side == MemorySide::kAttention) {
    // Its tokens out to the experts and their top-k results back (send and receive buffers).
    plan.comm_buffer_bytes =
        budget * m.hidden * (bytes_per_element(m.dispatch_dtype) + m.top_k * bytes_per_element(m.combine_dtype));
  } else if (m.routed_experts > 0) {
    if (o.moe_tp > 1) {
      // Every rank gathers the tokens of all attention groups and runs its expert shards on the
      // ones routed to them; gather and scatter buffers hold the hidden states.
      const double gathered = budget * std::max(1, o.moe_token_groups);
      plan.activation_bytes += gathered * ab * (m.hidden + m.top_k * 2.0 * m.moe_intermediate / o.moe_tp);
      plan.comm_buffer_bytes = 2.0 * gathered * m.hidden * ab;
    } else {
      // Received token copies (up to top_k per token) and their expert intermediates.
      plan.activation_bytes += budget * m.top_k * ab * (m.hidden + 2.0 * m.moe_intermediate);
      const double dispatch = budget * m.top_k * m.hidden * bytes_per_element(m.dispatch_dtype);
      const double combine = budget * m.top_k * m.hidden * bytes_per_element(m.combine_dtype);
      plan.comm_buffer_bytes = 2.0 * (dispatch + combine);  // send and receive sides
    }
  }
  plan.runtime_reserve_bytes = o.runtime_reserve_bytes;
  plan.kv_bytes = o.capacity_bytes - plan.weight_bytes - plan.activation_bytes - plan.comm_buffer_bytes -
                  plan.runtime_reserve_bytes;
  plan.kv_bytes_per_token = per_token;
  plan.kv_capacity_tokens =
      plan.kv_bytes > 0 && per_token > 0 ? static_cast<std::int64_t>(std::floor(plan.kv_bytes / per_token)) : 0;
  return plan;
}

std::string MemoryPlan::table() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  capacity         %8.2f GiB\n"
                "  weights          %8.2f GiB (routed experts %.2f GiB)\n"
                "  activations      %8.2f GiB\n"
                "  comm buffers     %8.2f GiB\n"
                "  runtime reserve  %8.2f GiB\n"
                "  KV cache         %8.2f GiB (%lld tokens)",
                capacity_bytes / kGiB, weight_bytes / kGiB, routed_expert_bytes / kGiB, activation_bytes / kGiB,
                comm_buffer_bytes / kGiB, runtime_reserve_bytes / kGiB, kv_bytes / kGiB,
                static_cast<long long>(kv_capacity_tokens));
  std::string out = buf;
  if (state_bytes_per_request > 0) {
    std::snprintf(buf, sizeof buf, "\n  linear state     %8.2f MiB per request (%lld tokens' worth)",
                  state_bytes_per_request / (1024.0 * 1024.0), static_cast<long long>(state_tokens_per_request()));
    out += buf;
  }
  return out;
}

}  // namespace moesim::models
