#include "models/memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "models/layer_ops.h"

namespace moesim::models {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

double weight_bytes_per_param(DType t) {
  const double b = bytes_per_element(t);
  if (t == DType::kFp8) return b + 4.0 / (128.0 * 128.0);  // FP32 scale per 128x128 block
  if (t == DType::kFp4) return b + 1.0 / 32.0;             // E8M0 scale per 32 values (MXFP4)
  return b;
}

std::int64_t kv_capacity_requests(const ModelSpec& m, const MemoryPlan& plan, std::int64_t context_tokens) {
  const double per_request = m.kv_bytes_for_context(context_tokens);
  if (plan.kv_bytes <= 0 || per_request <= 0) return 0;
  return static_cast<std::int64_t>(std::floor(plan.kv_bytes / per_request));
}

MemoryPlan plan_rank_memory(const ModelSpec& m, const MemoryOptions& o) {
  const ParameterCount p = count_parameters(m);
  const double wb = weight_bytes_per_param(m.weight_dtype);
  const double ab = bytes_per_element(m.activation_dtype);
  MemoryPlan plan;
  plan.capacity_bytes = o.capacity_bytes;
  const std::int64_t experts_per_rank = m.routed_experts == 0 ? 0 : (m.routed_experts + o.redundant_experts + o.ep - 1) / o.ep;
  // A loaded MTP module is one more MoE layer: its routed experts split over EP like the others,
  // the rest of it (attention, shared experts, router, projection) is replicated.
  const int mtp = o.load_mtp ? m.mtp_layers : 0;
  const int expert_layers = m.num_moe_layers() + (m.routed_experts > 0 ? mtp : 0);
  const double expert = static_cast<double>(expert_params(m));
  plan.routed_expert_bytes = expert * experts_per_rank * expert_layers * weight_bytes_per_param(m.expert_dtype());
  const double mtp_replicated =
      mtp == 0 ? 0.0 : (static_cast<double>(p.mtp) / m.mtp_layers - expert * m.routed_experts) * mtp;
  plan.weight_bytes = static_cast<double>(p.attention) / o.attention_tp * wb +
                      (static_cast<double>(p.dense_mlp + p.shared_experts + p.routers) + mtp_replicated) * wb +
                      static_cast<double>(p.embedding) * ab + plan.routed_expert_bytes;
  const double budget = static_cast<double>(o.token_budget_per_rank);
  const double inter = std::max(m.dense_intermediate, m.moe_intermediate * std::max(1, m.shared_experts));
  // Live activations of one layer: residual, normed input, attention output, MLP intermediate.
  plan.activation_bytes = budget * ab * (4.0 * m.hidden + 2.0 * inter);
  if (m.routed_experts > 0) {
    // Received token copies (up to top_k per token) and their expert intermediates.
    plan.activation_bytes += budget * m.top_k * ab * (m.hidden + 2.0 * m.moe_intermediate);
    const double dispatch = budget * m.top_k * m.hidden * bytes_per_element(m.dispatch_dtype);
    const double combine = budget * m.top_k * m.hidden * bytes_per_element(m.combine_dtype);
    plan.comm_buffer_bytes = 2.0 * (dispatch + combine);  // send and receive sides
  }
  plan.runtime_reserve_bytes = o.runtime_reserve_bytes;
  plan.kv_bytes = o.capacity_bytes - plan.weight_bytes - plan.activation_bytes - plan.comm_buffer_bytes -
                  plan.runtime_reserve_bytes;
  const double per_token = m.kv_bytes_per_token();
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
                capacity_bytes / kGiB, weight_bytes / kGiB, routed_expert_bytes / kGiB,
                activation_bytes / kGiB, comm_buffer_bytes / kGiB, runtime_reserve_bytes / kGiB,
                kv_bytes / kGiB, static_cast<long long>(kv_capacity_tokens));
  return buf;
}

}  // namespace moesim::models
