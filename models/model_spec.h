// ModelSpec: the architecture of a decoder-only (MoE) transformer, as far as serving cost needs it.
//
// Layer i (0-based) is an MoE layer when i >= first_k_dense and (i - first_k_dense) % moe_every
// == 0; every other layer has a dense SwiGLU MLP of `dense_intermediate` columns. Attention is
// MHA/GQA (heads × head_dim, kv_heads × head_dim for K and V) or MLA (DeepSeek-V2/V3 latent
// attention: q LoRA rank, a compressed KV latent of kv_lora_rank plus a shared RoPE key).
//
// Local attention (`window`): with window.size > 0, every layer attends to a bounded span of past
// positions except every full_every-th layer ((i + 1) % full_every == 0), which keeps full
// attention; full_every = 0 makes every layer local. Sliding windows (Mistral, gpt-oss: 128
// tokens on even layers, full on odd ones = full_every 2) attend to the last `size` positions;
// chunked attention (Llama 4: 8192-token chunks on three of every four layers = full_every 4)
// attends to the positions of the current chunk only. Either way a local layer caches at most
// `size` positions.
//
// Defaults describe a plain model: no window, no attention sinks, untied embedding and LM head,
// no MTP layers, every weight (experts included) in weight_dtype.
//
// Numerics of the forward pass (used by the functional decoder, models/functional/; the cost
// model ignores them): RMSNorm epsilon, RoPE base and YaRN scaling, query/key norms, q/k/v
// biases, and how router weights are formed (top-k renormalisation, routed scaling factor, the
// Qwen2-MoE shared-expert gate). Defaults are Llama/Mixtral's: eps 1e-6, theta 10000, no
// scaling, no qk-norm, no biases, renormalised top-k, scaling 1, no shared-expert gate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "models/dtype.h"

namespace moesim::models {

enum class AttentionKind { kMha, kGqa, kMla };
enum class RouterScoring { kSoftmax, kSigmoid };
enum class WindowKind { kSliding, kChunked };
// Per-query/key RMSNorm before RoPE: over each head's head_dim (Qwen3) or over all heads' q/k
// concatenated (OLMoE).
enum class QkNorm { kNone, kPerHead, kFull };

struct MlaDims {
  int q_lora_rank = 0;     // 0: no low-rank query compression (plain q projection)
  int kv_lora_rank = 512;  // width of the cached KV latent c_kv
  int qk_nope_head_dim = 128;
  int qk_rope_head_dim = 64;  // decoupled RoPE key, cached once per token (shared by heads)
  int v_head_dim = 128;
};

// DeepSeek Sparse Attention (DSA; DeepSeek-V3.2-Exp report, 2025): a lightning indexer of
// index_heads small heads (index_head_dim wide, FP8) scores every cached token for each query
// (ReLU of q·k, weighted per head and summed), and the MLA core then attends to the top_k best
// tokens only, in MLA's MQA (absorbed) form. The indexer keeps its own key cache, one
// index_head_dim-wide FP8 key plus an FP32 scale per token and layer. top_k = 0: dense attention.
struct SparseAttention {
  int index_heads = 0;     // index_n_heads
  int index_head_dim = 0;  // index_head_dim
  int top_k = 0;           // index_topk: tokens each query attends to
  bool enabled() const { return top_k > 0; }
};

// Gated DeltaNet linear attention (Yang, Kautz and Hatamizadeh 2024, "Gated Delta Networks";
// Qwen3-Next): every layer but each full_every-th ((i + 1) % full_every == 0) replaces softmax
// attention with a recurrence over a fixed-size state per sequence: value_heads states of
// key_head_dim x value_head_dim (key heads shared by value_heads / key_heads value heads, as GQA),
// decayed and delta-rule updated per token, plus a causal depthwise convolution of conv_kernel
// taps over the q, k and v channels, whose last conv_kernel - 1 inputs are kept. Its projections:
// q, k, v and the output gate z from the hidden state, beta and the decay (two per value head),
// and the output. A linear layer caches no tokens; its state is the same at any context length.
// state_dtype: the recurrent state's format (SGLang's default --mamba-ssm-dtype, float32); the
// convolution window is kept in the activation dtype. full_every = 0: no linear attention.
struct LinearAttention {
  int full_every = 0;
  int key_heads = 0;       // linear_num_key_heads
  int value_heads = 0;     // linear_num_value_heads
  int key_head_dim = 0;    // linear_key_head_dim
  int value_head_dim = 0;  // linear_value_head_dim
  int conv_kernel = 4;     // linear_conv_kernel_dim
  DType state_dtype = DType::kFp32;
  bool enabled() const { return full_every > 0; }
  std::int64_t key_dim() const { return std::int64_t{key_heads} * key_head_dim; }
  std::int64_t value_dim() const { return std::int64_t{value_heads} * value_head_dim; }
  // Channels through the short convolution: q, k and v.
  std::int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
};

struct LocalAttention {
  int size = 0;  // tokens; 0 = no local attention (every layer attends to the full context)
  WindowKind kind = WindowKind::kSliding;
  int full_every = 0;  // layers with (i + 1) % full_every == 0 stay full; 0 = all layers local
};

// Rotary position embedding (Su et al. 2021, RoFormer). `interleaved`: rotate pairs (2i, 2i+1)
// (the layout of DeepSeek's MLA checkpoints); otherwise pairs (i, i + d/2) (Llama/HF rotate_half).
// YaRN (Peng et al. 2023, "YaRN: Efficient Context Window Extension"): with factor > 1, each
// frequency is blended between the original and original/factor by a linear ramp over the
// dimensions whose wavelength sits between original_context / beta_fast and
// original_context / beta_slow (rounded outward to whole dimensions when `truncate`); cos and
// sin are scaled by m(mscale) / m(mscale_all_dim), and MLA's softmax scale by m(mscale_all_dim)^2,
// where m(a) = 0.1 a ln(factor) + 1 (m(0) = 1), as in DeepSeek-V3's config.
struct RopeSpec {
  double theta = 10000;
  // Fraction of each MHA/GQA head's dims that RoPE turns: the first partial x head_dim, the rest
  // pass through unrotated (GLM-4.5 0.5, MiniMax-M2 64 of 128, Qwen3-Next 0.25); 1 = every dim.
  // MLA rotates its decoupled qk_rope_head_dim instead and keeps 1.
  double partial = 1;
  bool interleaved = false;
  double yarn_factor = 1;  // 1 = no YaRN scaling
  int yarn_original_context = 4096;
  double yarn_beta_fast = 32;
  double yarn_beta_slow = 1;
  double yarn_mscale = 1;
  double yarn_mscale_all_dim = 0;
  bool yarn_truncate = true;
};

struct ModelSpec {
  std::string name;
  std::string description;  // one line, for listings
  std::string source;       // the public config this spec follows

  int num_layers = 0;
  int hidden = 0;
  int vocab = 0;
  bool tie_embeddings = false;  // LM head shares the input embedding matrix
  // Multi-token-prediction modules (DeepSeek-V3: 1). Not part of num_layers or the parameter
  // total; see ParameterCount::mtp.
  int mtp_layers = 0;

  AttentionKind attention = AttentionKind::kGqa;
  int heads = 0;
  int kv_heads = 0;        // MHA/GQA only
  int head_dim = 0;        // MHA/GQA only
  MlaDims mla;             // MLA only
  SparseAttention sparse;  // MLA only: DSA (DeepSeek-V3.2)
  LocalAttention window;
  LinearAttention linear;  // MHA/GQA only: Gated DeltaNet layers (Qwen3-Next)
  // The attention output is multiplied by sigmoid of a gate from the hidden state (Qwen3-Next's
  // gated attention): the q projection is twice as wide, carrying the gate with the queries.
  bool output_gate = false;
  // Learned per-head attention-sink logits (gpt-oss): no cached positions and negligible work;
  // recorded so imported configs round-trip.
  bool attention_sinks = false;
  QkNorm qk_norm = QkNorm::kNone;
  bool qkv_bias = false;  // q/k/v projections carry biases (Qwen2, gpt-oss)
  RopeSpec rope;
  double norm_eps = 1e-6;  // RMSNorm epsilon (rms_norm_eps)

  int first_k_dense = 0;  // leading layers with a dense MLP
  int moe_every = 1;      // MoE on every Nth layer after the dense prefix
  int dense_intermediate = 0;
  int moe_intermediate = 0;  // per routed (and shared) expert
  int routed_experts = 0;    // per MoE layer; 0 = dense model
  int shared_experts = 0;    // per MoE layer
  int top_k = 0;
  RouterScoring scoring = RouterScoring::kSoftmax;
  // Group-limited routing: groups of experts, of which each token may use top_groups. A group's
  // score is the sum of its two best scores with sigmoid scoring (DeepSeek-V3), its best score
  // with softmax (DeepSeek-V2).
  int expert_groups = 1;
  int top_groups = 1;
  bool norm_top_k = true;           // renormalise the k chosen weights to sum 1 (norm_topk_prob)
  double routed_scaling = 1;        // routed experts' combined output × this (routed_scaling_factor)
  bool shared_expert_gate = false;  // shared-expert output × sigmoid(w · x) (Qwen2-MoE)

  DType weight_dtype = DType::kBf16;         // projection, dense-MLP and shared-expert weights
  std::optional<DType> expert_weight_dtype;  // routed experts, when they differ (gpt-oss: MXFP4)
  DType kv_dtype = DType::kBf16;             // KV cache
  DType dispatch_dtype = DType::kBf16;       // all-to-all dispatch payload
  DType combine_dtype = DType::kBf16;        // all-to-all combine payload
  DType activation_dtype = DType::kBf16;

  DType expert_dtype() const { return expert_weight_dtype.value_or(weight_dtype); }

  bool is_moe_layer(int layer) const;
  int num_moe_layers() const;
  int num_dense_layers() const { return num_layers - num_moe_layers(); }

  // The span of past positions layer `layer` attends to and caches: 0 = full attention (or a
  // linear-attention layer, which caches no positions).
  int attention_window(int layer) const;
  int num_local_layers() const;
  // Whether layer `layer` is a linear-attention (Gated DeltaNet) layer, and how many are.
  bool is_linear_layer(int layer) const;
  int num_linear_layers() const;
  // Layers that cache every position they attend to (all but the linear-attention ones).
  int num_token_caching_layers() const { return num_layers - num_linear_layers(); }
  // Bytes one sequence's state takes in one linear-attention layer (recurrent state and the
  // convolution window), whatever its length; 0 without linear attention.
  double linear_state_bytes_per_layer() const;
  // Σ over the linear-attention layers: the fixed part of a sequence's cache.
  double state_bytes_per_sequence() const { return linear_state_bytes_per_layer() * num_linear_layers(); }

  // Dims of each head that RoPE turns: qk_rope_head_dim for MLA, partial x head_dim otherwise.
  int rotary_dim() const;

  // Elements cached per token per layer: MLA caches the latent plus the RoPE key; MHA/GQA cache
  // K and V for every KV head.
  std::int64_t kv_elements_per_token_per_layer() const;
  // Bytes cached per token per layer: the KV elements in kv_dtype, plus a DSA indexer's key.
  double kv_bytes_per_token_per_layer() const;
  // Bytes a token occupies in the layers that cache tokens: exact without local attention, an
  // upper bound with it (local layers stop growing at their window; see kv_bytes_for_context).
  double kv_bytes_per_token() const { return kv_bytes_per_token_per_layer() * num_token_caching_layers(); }
  // Cache bytes of one request holding `tokens` positions: Σ over the token-caching layers of
  // min(tokens, window) × per-layer bytes (a chunked layer's worst case is a full chunk), plus
  // the state of the linear-attention layers (state_bytes_per_sequence) once it holds any.
  double kv_bytes_for_context(std::int64_t tokens) const;
};

}  // namespace moesim::models
