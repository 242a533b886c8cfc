// Hugging Face tensor names of the decoder's weight slots (weight_slots.h) in the checkpoint
// layouts moesim reads, and the loader that fills DecoderWeights from a checkpoint.
//
// Shared by all: model.embed_tokens.weight, model.norm.weight, lm_head.weight; per layer
// model.layers.N.{input_layernorm, post_attention_layernorm}.weight, self_attn.{q,k,v,o}_proj
// (.weight, .bias), self_attn.{q,k}_norm.weight, dense mlp.{gate,up,down}_proj.weight.
//   mixtral    block_sparse_moe.gate.weight; block_sparse_moe.experts.E.{w1, w3, w2}.weight
//              (gate, up, down).
//   qwen-moe   (Qwen2-MoE, Qwen3-MoE, OLMoE) mlp.gate.weight; mlp.experts.E.{gate,up,down}_proj;
//              mlp.shared_expert.{gate,up,down}_proj and mlp.shared_expert_gate.weight.
//   deepseek   (DeepSeek-V2/V3, Kimi-K2) mlp.gate.weight and mlp.gate.e_score_correction_bias;
//              mlp.experts.E.*; mlp.shared_experts.{gate,up,down}_proj; MLA
//              self_attn.{q_a_proj, q_a_layernorm, q_b_proj (or q_proj), kv_a_proj_with_mqa,
//              kv_a_layernorm, kv_b_proj, o_proj}.weight.
// The layout is detected: Mixtral's router name in the first MoE layer, else DeepSeek for MLA,
// else qwen-moe.
//
// load_checkpoint throws ModelError naming the checkpoint and the tensor: "<dir>: missing tensor
// '<name>' (<layout> layout)", "<shard>: tensor '<name>': shape [..], expected [..] from the
// model", plus the file errors of safetensors.h / checkpoint.h.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "models/functional/checkpoint.h"
#include "models/functional/weight_slots.h"
#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

enum class CheckpointLayout { kMixtral, kQwenMoe, kDeepseek };

std::string_view layout_name(CheckpointLayout layout);
std::string tensor_name(CheckpointLayout layout, const WeightSlot& slot);
CheckpointLayout detect_layout(const ModelSpec& spec, const Checkpoint& checkpoint);

DecoderWeights load_checkpoint(const ModelSpec& spec, const std::filesystem::path& path);

}  // namespace moesim::models::functional
