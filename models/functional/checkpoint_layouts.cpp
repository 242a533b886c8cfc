#include "models/functional/checkpoint_layouts.h"

#include <map>

#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

const std::map<std::string, std::string, std::less<>>& common_names() {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"attn_norm", "input_layernorm.weight"},
      {"mlp_norm", "post_attention_layernorm.weight"},
      {"q", "self_attn.q_proj.weight"},
      {"k", "self_attn.k_proj.weight"},
      {"v", "self_attn.v_proj.weight"},
      {"o", "self_attn.o_proj.weight"},
      {"q_bias", "self_attn.q_proj.bias"},
      {"k_bias", "self_attn.k_proj.bias"},
      {"v_bias", "self_attn.v_proj.bias"},
      {"q_norm", "self_attn.q_norm.weight"},
      {"k_norm", "self_attn.k_norm.weight"},
      {"sinks", "self_attn.sinks"},
      {"q_a", "self_attn.q_a_proj.weight"},
      {"q_a_norm", "self_attn.q_a_layernorm.weight"},
      {"q_b", "self_attn.q_b_proj.weight"},
      {"kv_a", "self_attn.kv_a_proj_with_mqa.weight"},
      {"kv_a_norm", "self_attn.kv_a_layernorm.weight"},
      {"kv_b", "self_attn.kv_b_proj.weight"},
      {"mlp.gate", "mlp.gate_proj.weight"},
      {"mlp.up", "mlp.up_proj.weight"},
      {"mlp.down", "mlp.down_proj.weight"},
      {"router", "mlp.gate.weight"},
      {"score_bias", "mlp.gate.e_score_correction_bias"},
      {"shared_gate", "mlp.shared_expert_gate.weight"},
  };
  return names;
}

std::string moe_name(CheckpointLayout layout, const WeightSlot& s) {
  const std::string part = s.key.substr(s.key.find('.') + 1);  // gate / up / down
  if (s.key.starts_with("expert.")) {
    const std::string e = std::to_string(s.expert);
    if (layout == CheckpointLayout::kMixtral)
      return "block_sparse_moe.experts." + e + "." + (part == "gate" ? "w1" : part == "up" ? "w3" : "w2") + ".weight";
    return "mlp.experts." + e + "." + part + "_proj.weight";
  }
  // shared.*
  return std::string(layout == CheckpointLayout::kDeepseek ? "mlp.shared_experts." : "mlp.shared_expert.") + part +
         "_proj.weight";
}

}  // namespace

std::string_view layout_name(CheckpointLayout layout) {
  switch (layout) {
    case CheckpointLayout::kMixtral: return "mixtral";
    case CheckpointLayout::kQwenMoe: return "qwen-moe";
    case CheckpointLayout::kDeepseek: return "deepseek";
  }
  return "?";
}

std::string tensor_name(CheckpointLayout layout, const WeightSlot& s) {
  if (s.layer < 0) {
    if (s.key == "embed") return "model.embed_tokens.weight";
    if (s.key == "final_norm") return "model.norm.weight";
    return "lm_head.weight";
  }
  const std::string prefix = "model.layers." + std::to_string(s.layer) + ".";
  if (s.key.starts_with("expert.") || s.key.starts_with("shared.")) return prefix + moe_name(layout, s);
  if (layout == CheckpointLayout::kMixtral && s.key == "router") return prefix + "block_sparse_moe.gate.weight";
  return prefix + common_names().find(s.key)->second;
}

CheckpointLayout detect_layout(const ModelSpec& spec, const Checkpoint& ckpt) {
  for (int l = 0; l < spec.num_layers; ++l)
    if (spec.is_moe_layer(l)) {
      if (ckpt.find("model.layers." + std::to_string(l) + ".block_sparse_moe.gate.weight").second)
        return CheckpointLayout::kMixtral;
      break;
    }
  return spec.attention == AttentionKind::kMla ? CheckpointLayout::kDeepseek : CheckpointLayout::kQwenMoe;
}

DecoderWeights load_checkpoint(const ModelSpec& spec, const std::filesystem::path& path) {
  const Checkpoint ckpt(path);
  const CheckpointLayout layout = detect_layout(spec, ckpt);
  DecoderWeights w;
  for (const WeightSlot& slot : weight_slots(spec, w)) {
    const std::string name = tensor_name(layout, slot);
    const auto [file, info] = ckpt.find(name);
    if (info == nullptr)
      throw ModelError(path.string() + ": missing tensor '" + name + "' (" + std::string(layout_name(layout)) +
                       " layout)");
    const bool vector = slot.cols == 0;
    const bool fits = vector ? info->shape.size() == 1 && info->shape[0] == slot.rows
                             : info->shape.size() == 2 && info->shape[0] == slot.rows && info->shape[1] == slot.cols;
    if (!fits) {
      std::string got = "[";
      for (std::size_t i = 0; i < info->shape.size(); ++i) got += (i ? ", " : "") + std::to_string(info->shape[i]);
      throw ModelError(file->path().string() + ": tensor '" + name + "': shape " + got + "], expected " +
                       shape_text(slot.rows, slot.cols) + " from the model");
    }
    if (vector) {
      slot.vector->resize(slot.rows);
      file->read(*info, slot.vector->data());
    } else {
      slot.matrix->resize(slot.rows, slot.cols);
      file->read(*info, slot.matrix->data());
    }
  }
  return w;
}

}  // namespace moesim::models::functional
