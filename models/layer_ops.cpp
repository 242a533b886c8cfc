#include "models/layer_ops.h"

#include <algorithm>
#include <cmath>

#include "models/linear_attention.h"
#include "models/model_error.h"

namespace moesim::models {

std::vector<WeightMatmul> attention_projections(const ModelSpec& m) {
  const std::int64_t h = m.hidden;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    const std::int64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    std::vector<WeightMatmul> ops;
    if (a.q_lora_rank > 0) {
      ops.push_back({"q_a_proj", h, a.q_lora_rank});
      ops.push_back({"q_b_proj", a.q_lora_rank, m.heads * qk_head});
    } else {
      ops.push_back({"q_proj", h, m.heads * qk_head});
    }
    ops.push_back({"kv_a_proj", h, a.kv_lora_rank + a.qk_rope_head_dim});
    const double uv = static_cast<double>(a.v_head_dim) / static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
    ops.push_back({"kv_b_proj", a.kv_lora_rank, m.heads * (a.qk_nope_head_dim + a.v_head_dim), uv});
    ops.push_back({"o_proj", static_cast<std::int64_t>(m.heads) * a.v_head_dim, h, 1.0});
    if (m.sparse.enabled()) {
      // The lightning indexer (DSA): its queries from the q latent (or the hidden state without q
      // LoRA), one shared key and the per-head weights from the hidden state; before the core.
      const auto& x = m.sparse;
      ops.push_back(
          {"indexer_q", a.q_lora_rank > 0 ? a.q_lora_rank : h, std::int64_t{x.index_heads} * x.index_head_dim});
      ops.push_back({"indexer_k", h, x.index_head_dim});
      ops.push_back({"indexer_weights", h, x.index_heads});
    }
    return ops;
  }
  // Gated attention: the q projection carries the output gate beside the queries.
  const std::int64_t q_width = static_cast<std::int64_t>(m.heads) * m.head_dim * (m.output_gate ? 2 : 1);
  return {
      {"q_proj", h, q_width},
      {"k_proj", h, static_cast<std::int64_t>(m.kv_heads) * m.head_dim},
      {"v_proj", h, static_cast<std::int64_t>(m.kv_heads) * m.head_dim},
      {"o_proj", static_cast<std::int64_t>(m.heads) * m.head_dim, h, 1.0},
  };
}

bool quantises_activations(DType dtype) { return dtype == DType::kFp8 || dtype == DType::kInt8 || is_fp4(dtype); }

double activation_quant_bytes(const ModelSpec& m, std::int64_t width, DType weights) {
  const auto w = static_cast<double>(width);
  const double read = w * bytes_per_element(m.activation_dtype);
  // NVFP4 GEMMs take NVFP4 activations (4 bits and an E4M3 scale per 16 values); FP8 and MXFP4
  // (W4A8) GEMMs take FP8 activations with an FP32 scale per 128.
  if (weights == DType::kNvfp4) return read + w / 2.0 + w / 16.0;
  // W8A8 INT8 GEMMs take INT8 activations with one FP32 scale per token (per-token dynamic
  // quantisation, as SmoothQuant-style W8A8 kernels in vLLM and on Ascend run it).
  if (weights == DType::kInt8) return read + w + 4.0;
  return read + w + (w / 128.0) * 4.0;
}

std::vector<StreamOp> attention_stream_ops(const ModelSpec& m) {
  const double act = bytes_per_element(m.activation_dtype), kv = cache_bytes_per_element(m.kv_dtype);
  const auto h = static_cast<double>(m.hidden), heads = static_cast<double>(m.heads);
  // Read x and the residual, write the new residual and the normed x.
  std::vector<StreamOp> ops{{"input_norm", 4 * h * act}, {"post_attention_norm", 4 * h * act, 1.0}};
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    if (a.q_lora_rank > 0) ops.push_back({"q_a_norm", 2.0 * a.q_lora_rank * act});
    ops.push_back({"kv_a_norm", 2.0 * a.kv_lora_rank * act});
    ops.push_back({"rope", 2.0 * (heads + 1) * a.qk_rope_head_dim * act});
    ops.push_back({"kv_cache_write", static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim) * (act + kv)});
  } else {
    const double q = heads * m.head_dim, k = static_cast<double>(m.kv_heads) * m.head_dim;
    if (m.qk_norm != QkNorm::kNone) ops.push_back({"qk_norm", 2.0 * (q + k) * act});
    ops.push_back({"rope", 2.0 * (q + k) * act});
    ops.push_back({"kv_cache_write", 2.0 * k * (act + kv)});
    // Gated attention: the core's output times sigmoid(gate), read both and write the product.
    if (m.output_gate) ops.push_back({"output_gate", 3.0 * q * act, 1.0});
  }
  if (quantises_activations(m.weight_dtype)) {
    // One quantisation per distinct projection input (projections reading the same input share
    // it), before the core unless only the o-projection reads it.
    std::vector<std::int64_t> inputs;
    std::vector<double> after;
    for (const auto& op : attention_projections(m)) {
      const auto it = std::find(inputs.begin(), inputs.end(), op.k);
      if (it == inputs.end()) {
        inputs.push_back(op.k);
        after.push_back(op.after_core >= 1.0 ? 1.0 : 0.0);
      } else if (op.after_core < 1.0) {
        after[static_cast<std::size_t>(it - inputs.begin())] = 0.0;
      }
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      ops.push_back({"activation_quant", activation_quant_bytes(m, inputs[i], m.weight_dtype), after[i]});
  }
  return ops;
}

std::vector<StreamOp> moe_stream_ops(const ModelSpec& m) {
  const double act = bytes_per_element(m.activation_dtype);
  // Top-k over FP32 router logits, writing k (index, weight) pairs; then routed + shared outputs.
  std::vector<StreamOp> ops{{"topk", 4.0 * m.routed_experts + 8.0 * m.top_k}};
  if (m.shared_experts > 0) ops.push_back({"moe_output_add", 3.0 * m.hidden * act});
  return ops;
}

WeightMatmul mlp_gate_up(const ModelSpec& m, std::int64_t intermediate) {
  return {"gate_up_proj", m.hidden, 2 * intermediate};
}
WeightMatmul mlp_down(const ModelSpec& m, std::int64_t intermediate) { return {"down_proj", intermediate, m.hidden}; }
WeightMatmul router(const ModelSpec& m) { return {"router", m.hidden, m.routed_experts}; }
WeightMatmul lm_head(const ModelSpec& m) { return {"lm_head", m.hidden, m.vocab}; }

namespace {

// Σ_{j=1}^{n} (positions the j-th token attends to) for a layer with window `w` (0 = full).
double attended_prefix_sum(const ModelSpec& m, int w, std::int64_t n) {
  const double N = static_cast<double>(n);
  if (w <= 0) return N * (N + 1) / 2;
  const double W = w;
  if (m.window.kind == WindowKind::kSliding) {
    if (n <= w) return N * (N + 1) / 2;
    return W * (W + 1) / 2 + (N - W) * W;
  }
  const double full_chunks = static_cast<double>(n / w), rest = static_cast<double>(n % w);
  return full_chunks * W * (W + 1) / 2 + rest * (rest + 1) / 2;
}

// Cached positions before the chunk that some token of the chunk attends to.
std::int64_t prefix_read(const ModelSpec& m, int w, std::int64_t past) {
  if (w <= 0) return past;
  if (m.window.kind == WindowKind::kSliding) return std::min<std::int64_t>(past, w - 1);
  return past % w;
}

// The DSA indexer for `pairs` (query, cached token) scores: q·k over index_head_dim in each of
// index_heads heads, ReLU, times the head's weight, summed (2 FLOPs per multiply-add); reading
// `keys` cached indexer keys. Zero for dense attention.
Work indexer_work(const ModelSpec& m, double pairs, double keys) {
  if (!m.sparse.enabled()) return {};
  const auto& x = m.sparse;
  return {pairs * (2.0 * x.index_heads * x.index_head_dim + 2.0 * x.index_heads), keys * (x.index_head_dim + 4.0)};
}

Work dense_decode_core(const ModelSpec& m, std::int64_t attended);

// DSA: the indexer scores every cached token; the MLA core reads and attends to top_k of them.
Work decode_core(const ModelSpec& m, std::int64_t attended) {
  if (!m.sparse.enabled()) return dense_decode_core(m, attended);
  const double len = static_cast<double>(attended);
  const Work core = dense_decode_core(m, std::min<std::int64_t>(attended, m.sparse.top_k));
  const Work index = indexer_work(m, len, len);
  // The core reads only the latents (the indexer keys are the indexer's bytes).
  const double indexer_key = m.sparse.index_head_dim + 4.0;
  const double core_bytes =
      core.bytes - static_cast<double>(std::min<std::int64_t>(attended, m.sparse.top_k)) * indexer_key;
  return {core.flops + index.flops, core_bytes + index.bytes};
}

Work dense_decode_core(const ModelSpec& m, std::int64_t attended) {
  const double len = static_cast<double>(attended);
  Work w;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    // Absorbed: scores over [latent | rope] (576 wide), then values are the latent (512 wide);
    // plus folding W_UK into q and W_UV into the output for this token.
    w.flops = 2.0 * m.heads * len * (a.kv_lora_rank + a.qk_rope_head_dim) + 2.0 * m.heads * len * a.kv_lora_rank +
              2.0 * m.heads * a.qk_nope_head_dim * a.kv_lora_rank + 2.0 * m.heads * a.kv_lora_rank * a.v_head_dim;
  } else {
    w.flops = 2.0 * m.heads * len * m.head_dim * 2;
  }
  w.bytes = len * m.kv_bytes_per_token_per_layer();
  return w;
}

// Σ over the chunk's queries of min(positions attended, top_k): DSA's sparse pairs.
double sparse_pairs(std::int64_t past, std::int64_t chunk, std::int64_t k) {
  const auto tri = [](double n) { return n * (n + 1) / 2; };
  const std::int64_t end = past + chunk, knee = std::clamp<std::int64_t>(k, past, end);  // queries past `knee` see k
  return tri(static_cast<double>(knee)) - tri(static_cast<double>(past)) +
         static_cast<double>(end - knee) * static_cast<double>(k);
}

// DSA prefill (MQA form of MLA, as the V3.2-Exp kernels run it): each query attends to at most
// top_k positions over the [latent | rope] cache; the indexer scores every causal pair and reads
// the prefix's indexer keys once.
Work sparse_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  const auto& a = m.mla;
  const double q = static_cast<double>(chunk);
  const double pairs = attended_prefix_sum(m, 0, past + chunk) - attended_prefix_sum(m, 0, past);
  const double sparse = sparse_pairs(past, chunk, m.sparse.top_k);
  const double latent = static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim) * cache_bytes_per_element(m.kv_dtype);
  Work w = indexer_work(m, pairs, static_cast<double>(past) + q);
  w.flops += 2.0 * m.heads * sparse * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim) +
             q * (2.0 * m.heads * a.qk_nope_head_dim * a.kv_lora_rank + 2.0 * m.heads * a.kv_lora_rank * a.v_head_dim);
  // The selected latents (at most the prefix once), and the chunk's new cache entries written.
  w.bytes += (std::min(static_cast<double>(past), sparse) + q) * latent + q * m.kv_bytes_per_token_per_layer();
  return w;
}

Work prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk, int window) {
  if (m.sparse.enabled()) return sparse_prefill_core(m, past, chunk);
  const double q = static_cast<double>(chunk);
  const double pairs = attended_prefix_sum(m, window, past + chunk) - attended_prefix_sum(m, window, past);
  const double prefix = static_cast<double>(prefix_read(m, window, past));
  Work w;
  if (m.attention == AttentionKind::kMla) {
    const auto& a = m.mla;
    w.flops = 2.0 * m.heads * pairs * (a.qk_nope_head_dim + a.qk_rope_head_dim) + 2.0 * m.heads * pairs * a.v_head_dim;
    // Expanding the cached latent of the prefix into per-head K/V (kv_b) is extra work.
    w.flops += 2.0 * prefix * a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
  } else {
    w.flops = 2.0 * m.heads * pairs * m.head_dim * 2;
  }
  // Reads the attended cached context once and writes the chunk's new entries.
  w.bytes = (prefix + q) * m.kv_bytes_per_token_per_layer() + q * m.kv_bytes_per_token_per_layer();
  return w;
}

// MLA's absorbed path for a prefill chunk: every new token attends as a decode token does (scores
// over the [latent | rope] cache, values from the latent; W_UK and W_UV folded into its query and
// output), reading the prefix's latent once; no expansion of the prefix into per-head K/V.
Work prefill_absorbed_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk, int window) {
  if (m.attention != AttentionKind::kMla || m.sparse.enabled()) return prefill_core(m, past, chunk, window);
  const auto& a = m.mla;
  const double q = static_cast<double>(chunk);
  const double pairs = attended_prefix_sum(m, window, past + chunk) - attended_prefix_sum(m, window, past);
  const double prefix = static_cast<double>(prefix_read(m, window, past));
  Work w;
  w.flops = 2.0 * m.heads * pairs * (2.0 * a.kv_lora_rank + a.qk_rope_head_dim) +
            q * (2.0 * m.heads * a.qk_nope_head_dim * a.kv_lora_rank + 2.0 * m.heads * a.kv_lora_rank * a.v_head_dim);
  w.bytes = (prefix + q) * m.kv_bytes_per_token_per_layer() + q * m.kv_bytes_per_token_per_layer();
  return w;
}

Work scaled_sum(const Work& a, int na, const Work& b, int nb) {
  return {a.flops * na + b.flops * nb, a.bytes * na + b.bytes * nb};
}

}  // namespace

std::int64_t effective_kv_len(const ModelSpec& m, int layer, std::int64_t kv_len) {
  const int w = m.attention_window(layer);
  if (w <= 0 || kv_len <= 0) return kv_len;
  if (m.window.kind == WindowKind::kSliding) return std::min<std::int64_t>(kv_len, w);
  return (kv_len - 1) % w + 1;
}

Work attention_decode_core(const ModelSpec& m, std::int64_t kv_len) { return decode_core(m, kv_len); }

// Dense and MLA decode work is affine in the length: fixed + per_position x len. When the four
// coefficients are whole numbers, every term dense_decode_core adds is a whole number, and so is
// each of its partial products: those without the length are products of the model's sizes
// (small), those with it are at most the term (the factors after the length are sizes of at least
// 1, checked below). Below 2^53 whole numbers are exact in double, so while the total stays below
// it, the one-by-one sum is the exact integer sum, which is what the closed form computes.
std::optional<Work> attention_decode_total(const ModelSpec& m, std::span<const std::int64_t> kv_lens) {
  const bool mla = m.attention == AttentionKind::kMla;
  if (m.sparse.enabled() || m.heads < 1 || (mla ? m.mla.kv_lora_rank < 1 : m.head_dim < 1)) return std::nullopt;
  constexpr double kExact = 9007199254740992.0;  // 2^53
  const Work fixed = dense_decode_core(m, 0), one = dense_decode_core(m, 1);
  const Work per{one.flops - fixed.flops, one.bytes - fixed.bytes};
  const auto whole = [](double x) { return x >= 0 && x < kExact && x == std::floor(x); };
  if (!whole(fixed.flops) || !whole(fixed.bytes) || !whole(per.flops) || !whole(per.bytes)) return std::nullopt;
  if (kv_lens.size() >= (std::size_t{1} << 23)) return std::nullopt;
  std::int64_t positions = 0;
  for (const std::int64_t len : kv_lens) {
    if (len < 0 || len > (std::int64_t{1} << 40)) return std::nullopt;
    positions += len;  // below 2^23 lengths of at most 2^40 each: no overflow
  }
  const auto tokens = static_cast<double>(kv_lens.size());
  const Work total{per.flops * static_cast<double>(positions) + fixed.flops * tokens,
                   per.bytes * static_cast<double>(positions) + fixed.bytes * tokens};
  // Below 2^53 (and 2^53 itself is not reached) the products and the sum above were exact too.
  if (!(total.flops < kExact && total.bytes < kExact)) return std::nullopt;
  return total;
}

Work attention_decode_indexer(const ModelSpec& m, std::int64_t kv_len) {
  const double len = static_cast<double>(kv_len);
  return indexer_work(m, len, len);
}

Work attention_decode_core(const ModelSpec& m, std::int64_t kv_len, int layer) {
  return decode_core(m, effective_kv_len(m, layer, kv_len));
}

Work attention_verify_core(const ModelSpec& m, std::int64_t kv_len, int queries) {
  Work w = decode_core(m, kv_len);
  for (int j = 1; j < queries && kv_len - j > 0; ++j) w.flops += decode_core(m, kv_len - j).flops;
  return w;
}

Work attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  return prefill_core(m, past, chunk, 0);
}

Work attention_prefill_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk, int layer) {
  return prefill_core(m, past, chunk, m.attention_window(layer));
}

Work attention_prefill_absorbed_core(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  return prefill_absorbed_core(m, past, chunk, 0);
}

// Every local layer shares one window, so the sum is full-layer work × full layers plus
// local-layer work × local layers.
// Linear-attention layers (never windowed) add their fixed-state core.
Work attention_decode_all_layers(const ModelSpec& m, std::int64_t kv_len) {
  if (m.linear.enabled())
    return scaled_sum(decode_core(m, kv_len), m.num_token_caching_layers(), linear_attention_decode_core(m),
                      m.num_linear_layers());
  const int local = m.num_local_layers();
  const std::int64_t local_len =
      local == 0 ? 0
                 : (m.window.kind == WindowKind::kSliding ? std::min<std::int64_t>(kv_len, m.window.size)
                                                          : (kv_len - 1) % m.window.size + 1);
  return scaled_sum(decode_core(m, kv_len), m.num_layers - local, decode_core(m, local_len), local);
}

Work attention_prefill_all_layers(const ModelSpec& m, std::int64_t past, std::int64_t chunk) {
  if (m.linear.enabled())
    return scaled_sum(prefill_core(m, past, chunk, 0), m.num_token_caching_layers(),
                      linear_attention_prefill_core(m, past, chunk), m.num_linear_layers());
  const int local = m.num_local_layers();
  return scaled_sum(prefill_core(m, past, chunk, 0), m.num_layers - local,
                    prefill_core(m, past, chunk, local == 0 ? 0 : m.window.size), local);
}

int layer_kernels(const ModelSpec& m, int layer, int comm_kernels) {
  const int quant = quantises_activations(m.weight_dtype) ? 2 : 0;  // one per MLP GEMM's input
  const int mlp = 3 + quant;                                        // gate/up, SiLU·up, down
  // The attention core; a linear layer's is the convolution and the recurrence.
  int n = m.is_linear_layer(layer)
              ? static_cast<int>(linear_attention_stream_ops(m).size() + linear_attention_projections(m).size()) + 2
              : static_cast<int>(attention_stream_ops(m).size() + attention_projections(m).size()) + 1;
  const bool moe = m.is_moe_layer(layer);
  if (!moe) return n + mlp;
  n += 1 + static_cast<int>(moe_stream_ops(m).size());  // router GEMM, top-k and the output add
  if (m.shared_experts > 0) n += mlp;
  return n + mlp + comm_kernels;
}

std::int64_t expert_params(const ModelSpec& m) {
  return mlp_gate_up(m, m.moe_intermediate).params() + mlp_down(m, m.moe_intermediate).params();
}

ParameterCount count_parameters(const ModelSpec& m) {
  ParameterCount p;
  std::int64_t attn_layer = 0;
  for (const auto& op : attention_projections(m)) attn_layer += op.params();
  const std::int64_t dense_layer =
      mlp_gate_up(m, m.dense_intermediate).params() + mlp_down(m, m.dense_intermediate).params();
  const std::int64_t expert = expert_params(m);
  const int moe_layers = m.num_moe_layers();
  const int linear = m.num_linear_layers();
  p.attention = attn_layer * (m.num_layers - linear) + (linear > 0 ? linear_attention_params(m) * linear : 0);
  p.dense_mlp = dense_layer * m.num_dense_layers();
  p.routed_experts = expert * m.routed_experts * moe_layers;
  p.shared_experts = expert * m.shared_experts * moe_layers;
  p.routers = router(m).params() * moe_layers;
  const std::int64_t table = static_cast<std::int64_t>(m.vocab) * m.hidden;
  p.embedding = m.tie_embeddings ? table : 2 * table;
  // A token reads one row of the input embedding but multiplies by the whole LM head (the same
  // matrix when tied).
  p.activated = p.attention + p.dense_mlp + expert * m.top_k * moe_layers + p.shared_experts + p.routers +
                lm_head(m).params() + (m.tie_embeddings ? 0 : m.hidden);
  const std::int64_t mtp_mlp =
      m.routed_experts > 0 ? expert * (m.routed_experts + m.shared_experts) + router(m).params() : dense_layer;
  const std::int64_t eh_proj = 2LL * m.hidden * m.hidden;  // [embedding | hidden state] → hidden
  p.mtp = static_cast<std::int64_t>(m.mtp_layers) * (attn_layer + mtp_mlp + eh_proj);
  return p;
}

}  // namespace moesim::models

namespace moesim::models {

double dispatch_bytes_per_token(const ModelSpec& m) {
  double b = m.hidden * bytes_per_element(m.dispatch_dtype);
  if (m.dispatch_dtype == DType::kFp8 || m.dispatch_dtype == DType::kMxfp4) b += (m.hidden / 128.0) * 4.0;
  if (m.dispatch_dtype == DType::kNvfp4) b += m.hidden / 16.0;  // E4M3 scale per 16 values
  return b + m.top_k * (4.0 + 4.0);
}

double dispatch_bytes_per_token(const ModelSpec& m, PayloadFormat format) {
  const double h = m.hidden;
  const double routing = m.top_k * (4.0 + 4.0);  // int32 expert id and FP32 weight per choice
  switch (format) {
    case PayloadFormat::kModel: break;
    case PayloadFormat::kBf16: return 2.0 * h + routing;
    case PayloadFormat::kFp8: return h + h / 128.0 * 4.0 + routing;
    case PayloadFormat::kMxfp8: return h + h / 32.0 + routing;
    case PayloadFormat::kNvfp4: return h / 2.0 + h / 16.0 + routing;
  }
  return dispatch_bytes_per_token(m);
}

std::vector<PayloadFormatInfo> payload_formats() {
  return {{"model", "the model's dispatch dtype (dtypes.dispatch)", PayloadFormat::kModel},
          {"bf16", "BF16, 2 bytes per value", PayloadFormat::kBf16},
          {"fp8", "FP8 with an FP32 scale per 128 values (DeepEP)", PayloadFormat::kFp8},
          {"mxfp8", "MXFP8: FP8 with an E8M0 scale per 32 values (OCP MX)", PayloadFormat::kMxfp8},
          {"nvfp4", "NVFP4: FP4 with an E4M3 scale per 16 values", PayloadFormat::kNvfp4}};
}

PayloadFormat payload_format(std::string_view name) {
  std::string valid;
  for (const auto& f : payload_formats()) {
    if (f.name == name) return f.value;
    valid += (valid.empty() ? "" : ", ") + std::string(f.name);
  }
  throw ModelError("unknown dispatch payload '" + std::string(name) + "' (valid: " + valid + ")");
}

double combine_bytes_per_token(const ModelSpec& m) { return m.hidden * bytes_per_element(m.combine_dtype); }

}  // namespace moesim::models
