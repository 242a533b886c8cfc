// Hugging Face config.json import: the format users already have (docs/design.md §5).
//
// The first entry of "architectures" picks the mapping; supported: DeepseekV3ForCausalLM (also
// Kimi-K2), DeepseekV2ForCausalLM, MixtralForCausalLM, Qwen3MoeForCausalLM, Qwen2MoeForCausalLM,
// OlmoeForCausalLM, GptOssForCausalLM, Llama4ForConditionalGeneration (its text_config; the
// vision tower is not modelled) and the dense LlamaForCausalLM, Qwen2ForCausalLM and
// Qwen3ForCausalLM. Anything else is a ModelError listing these.
//
// Mapping rules beyond renaming keys:
// - Attention is MHA when num_key_value_heads equals num_attention_heads (or is absent), GQA
//   otherwise; head_dim defaults to hidden_size / num_attention_heads.
// - MoE placement: DeepSeek's moe_layer_freq (MoE where i >= first_k_dense_replace and
//   i % freq == 0), Qwen's decoder_sparse_step ((i + 1) % step == 0) with a leading run of
//   mlp_only_layers, Llama 4's interleave_moe_layer_step / moe_layers; other patterns are errors.
// - Qwen2-MoE's shared expert of shared_expert_intermediate_size counts as that size divided by
//   moe_intermediate_size experts (it must divide).
// - Local attention: Mixtral's sliding_window on every layer; gpt-oss's layer_types
//   (sliding_attention / full_attention) with sliding_window; Llama 4's attention_chunk_size on
//   the RoPE layers (layer_types, else no_rope_layers, else every 4th layer full). Patterns that
//   are not "every Nth layer full" are errors, as is Qwen's use_sliding_window.
// - Dtypes: quantization_config.quant_method "fp8" or "fbgemm_fp8" → FP8 weights and FP8
//   dispatch (the DeepEP deployment FP8 checkpoints are served with); "mxfp4" → FP4 routed
//   experts, the rest BF16; anything else or none → BF16. KV cache, combine and activations BF16.
// - Forward-pass numerics (models/model_spec.h): rms_norm_eps, rope_theta, rope_scaling of type
//   yarn (other scaling types are not recorded), rope_interleave (DeepSeek, default true),
//   norm_topk_prob (default false, as in the DeepSeek, Qwen and OLMoE configs; Mixtral and
//   gpt-oss always renormalise; Llama 4 never), routed_scaling_factor (DeepSeek), and the
//   architecture's fixed choices: Qwen2(-MoE) q/k/v biases and the Qwen2-MoE shared-expert
//   gate, Qwen3(-MoE) per-head q/k norms, OLMoE q/k norms over all heads, attention_bias.
// - The name is the last component of _name_or_path when present, else the model_type.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "models/model_error.h"
#include "models/model_spec.h"

namespace moesim::models {

ModelSpec load_hf_config_text(std::string_view text, std::string_view source_name);
ModelSpec load_hf_config(const std::filesystem::path& path);
std::vector<std::string_view> hf_supported_architectures();

}  // namespace moesim::models
