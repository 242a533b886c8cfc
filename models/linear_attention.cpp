#include "models/linear_attention.h"

#include <algorithm>

namespace moesim::models {
namespace {

double state_elements(const LinearAttention& a) {
  return static_cast<double>(a.value_heads) * a.key_head_dim * a.value_head_dim;
}

// Per token through the core: q, k, v after the convolution, beta and g read (FP32), the core's
// output written, in the activation dtype.
double core_io_bytes_per_token(const ModelSpec& m) {
  const auto& a = m.linear;
  const double act = bytes_per_element(m.activation_dtype);
  return static_cast<double>(a.conv_dim() + a.value_dim()) * act + 2.0 * a.value_heads * 4.0;
}

// Bytes of the convolution: the new tokens' q/k/v channels read and written; the kept window of
// conv_kernel - 1 inputs read and written once per sequence.
double conv_bytes(const ModelSpec& m, double tokens) {
  const auto& a = m.linear;
  const double act = bytes_per_element(m.activation_dtype);
  return 2.0 * tokens * a.conv_dim() * act + 2.0 * a.conv_dim() * (a.conv_kernel - 1) * act;
}

double conv_flops(const ModelSpec& m, double tokens) {
  return 2.0 * tokens * m.linear.conv_dim() * m.linear.conv_kernel;
}

}  // namespace

std::vector<WeightMatmul> linear_attention_projections(const ModelSpec& m) {
  const auto& a = m.linear;
  const std::int64_t h = m.hidden;
  return {{"in_proj_qkvz", h, 2 * a.key_dim() + 2 * a.value_dim()},
          {"in_proj_ba", h, 2LL * a.value_heads},
          {"out_proj", a.value_dim(), h, 1.0}};
}

std::vector<StreamOp> linear_attention_stream_ops(const ModelSpec& m) {
  const auto& a = m.linear;
  const double act = bytes_per_element(m.activation_dtype), h = m.hidden;
  std::vector<StreamOp> ops{{"input_norm", 4 * h * act},
                            {"post_attention_norm", 4 * h * act, 1.0},
                            // beta and the decay: read b and a, write two FP32 values per value head.
                            {"gates", 2.0 * a.value_heads * (act + 4.0)},
                            // The core's output normed per head and multiplied by SiLU(z).
                            {"gated_norm", 3.0 * static_cast<double>(a.value_dim()) * act, 1.0}};
  if (quantises_activations(m.weight_dtype)) {
    ops.push_back({"activation_quant", activation_quant_bytes(m, m.hidden, m.weight_dtype)});
    ops.push_back({"activation_quant", activation_quant_bytes(m, a.value_dim(), m.weight_dtype), 1.0});
  }
  return ops;
}

Work linear_attention_decode_core(const ModelSpec& m, int queries) {
  const auto& a = m.linear;
  const double q = std::max(1, queries), s = state_elements(a);
  const double state = s * bytes_per_element(a.state_dtype);
  Work w;
  // Per token and value head: decay S (dk dv), Sᵀk (2 dk dv), the rank-1 update (2 dk dv), Sᵀq
  // (2 dk dv); the per-column delta and the q/k L2 norms are lower order.
  w.flops = q * 7.0 * s + conv_flops(m, q);
  w.bytes = state * (1.0 + q) + q * core_io_bytes_per_token(m) + conv_bytes(m, q);
  return w;
}

Work linear_attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  if (chunk <= 0) return {};
  const auto& a = m.linear;
  const double n = static_cast<double>(chunk), c = kLinearChunk;
  const double chunks = static_cast<double>((chunk + kLinearChunk - 1) / kLinearChunk);
  const double dk = a.key_head_dim, dv = a.value_head_dim, heads = a.value_heads;
  const double act = bytes_per_element(m.activation_dtype);
  const double state = state_elements(a) * bytes_per_element(a.state_dtype);
  Work w;
  // Per chunk of C tokens and value head: K Kᵀ, the triangular solve (~C³/3 multiply-adds), the
  // WY factors T K and T V, Q Kᵀ and its product with the corrected values (C² (6 dk + 4 dv)
  // + 2C³/3); against the carried state W S, Q S and the state update (6 C dk dv).
  w.flops =
      heads * chunks * (c * c * (6.0 * dk + 4.0 * dv) + 2.0 * c * c * c / 3.0 + 6.0 * c * dk * dv) + conv_flops(m, n);
  // The state read when continuing a sequence and written at the end; each chunk's state written
  // by one kernel and read by the next (activation dtype); the per-token inputs and output.
  w.bytes = state * ((past > 0 ? 1.0 : 0.0) + 1.0) + 2.0 * chunks * heads * dk * dv * act +
            n * core_io_bytes_per_token(m) + conv_bytes(m, n);
  return w;
}

std::int64_t linear_attention_params(const ModelSpec& m) {
  std::int64_t p = std::int64_t{m.linear.conv_dim()} * m.linear.conv_kernel;
  for (const auto& op : linear_attention_projections(m)) p += op.params();
  return p;
}

}  // namespace moesim::models
