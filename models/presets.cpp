#include "models/presets.h"

namespace moesim::models {
namespace {

// DeepSeek-V3 (= R1): deepseek-ai/DeepSeek-V3 config.json on Hugging Face.
ModelSpec deepseek_v3() {
  ModelSpec m;
  m.name = "deepseek-v3";
  m.source = "huggingface.co/deepseek-ai/DeepSeek-V3 config.json";
  m.num_layers = 61;
  m.hidden = 7168;
  m.vocab = 129280;
  m.attention = AttentionKind::kMla;
  m.heads = 128;
  m.mla = MlaDims{.q_lora_rank = 1536, .kv_lora_rank = 512, .qk_nope_head_dim = 128,
                  .qk_rope_head_dim = 64, .v_head_dim = 128};
  m.first_k_dense = 3;
  m.moe_every = 1;
  m.dense_intermediate = 18432;
  m.moe_intermediate = 2048;
  m.routed_experts = 256;
  m.shared_experts = 1;
  m.top_k = 8;
  m.scoring = RouterScoring::kSigmoid;
  m.expert_groups = 8;
  m.top_groups = 4;
  m.weight_dtype = DType::kFp8;      // released FP8 checkpoint (block-scaled)
  m.kv_dtype = DType::kBf16;         // MLA latent cache as served by SGLang/vLLM by default
  m.dispatch_dtype = DType::kFp8;    // DeepEP FP8 dispatch
  m.combine_dtype = DType::kBf16;    // DeepEP BF16 combine
  m.activation_dtype = DType::kBf16;
  return m;
}

// A tiny MoE for fast tests: 4 layers (first dense), GQA, 16 experts top-2.
ModelSpec tiny_moe() {
  ModelSpec m;
  m.name = "tiny-moe";
  m.source = "moesim test model";
  m.num_layers = 4;
  m.hidden = 256;
  m.vocab = 1024;
  m.attention = AttentionKind::kGqa;
  m.heads = 8;
  m.kv_heads = 2;
  m.head_dim = 32;
  m.first_k_dense = 1;
  m.dense_intermediate = 1024;
  m.moe_intermediate = 128;
  m.routed_experts = 16;
  m.shared_experts = 1;
  m.top_k = 2;
  return m;
}

struct Entry {
  ModelPresetInfo info;
  ModelSpec (*make)();
};

constexpr Entry kPresets[] = {
    {{"deepseek-v3", "DeepSeek-V3/R1: 61 layers (3 dense), MLA, 256 routed + 1 shared expert, top-8, FP8"},
     &deepseek_v3},
    {{"tiny-moe", "4-layer GQA test model, 16 experts top-2 (fast tests)"}, &tiny_moe},
};

}  // namespace

std::vector<ModelPresetInfo> model_presets() {
  std::vector<ModelPresetInfo> out;
  for (const auto& e : kPresets) out.push_back(e.info);
  return out;
}

std::optional<ModelSpec> find_model_preset(std::string_view name) {
  for (const auto& e : kPresets)
    if (e.info.name == name) return e.make();
  return std::nullopt;
}

}  // namespace moesim::models
