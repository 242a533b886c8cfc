#include "models/hf_architectures.h"

#include <algorithm>
#include <string>
#include <vector>

namespace moesim::models {
namespace {

std::string list_text(const std::vector<int>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

double positive_number(const HfJson& c, std::string_view key, double fallback) {
  const double v = c.get_number(key, fallback);
  if (!(v > 0)) c.fail(key, "expected a positive number, got " + std::to_string(v));
  return v;
}

// rope_scaling: YaRN is recorded; other kinds (linear, dynamic, llama3) change no routing-cost
// figure and are not modelled by the functional decoder, so they are left out.
void read_rope_scaling(const HfJson& c, ModelSpec& m) {
  if (!c.has("rope_scaling")) return;
  const HfJson r = c.object("rope_scaling");
  const std::string type = r.get_string("type", r.get_string("rope_type", ""));
  if (type != "yarn") return;
  auto& p = m.rope;
  p.yarn_factor = positive_number(r, "factor", 1);
  p.yarn_original_context = r.get_int("original_max_position_embeddings", p.yarn_original_context, 1);
  p.yarn_beta_fast = positive_number(r, "beta_fast", p.yarn_beta_fast);
  p.yarn_beta_slow = positive_number(r, "beta_slow", p.yarn_beta_slow);
  p.yarn_mscale = r.get_number("mscale", p.yarn_mscale);
  p.yarn_mscale_all_dim = r.get_number("mscale_all_dim", p.yarn_mscale_all_dim);
  p.yarn_truncate = r.get_bool("truncate", true);
}

void read_basics(const HfJson& c, ModelSpec& m) {
  m.num_layers = c.require_int("num_hidden_layers");
  m.hidden = c.require_int("hidden_size");
  m.vocab = c.require_int("vocab_size");
  m.heads = c.require_int("num_attention_heads");
  m.tie_embeddings = c.get_bool("tie_word_embeddings", false);
  m.norm_eps = positive_number(c, "rms_norm_eps", m.norm_eps);
  m.rope.theta = positive_number(c, "rope_theta", m.rope.theta);
  read_rope_scaling(c, m);
}

// MHA/GQA projections: kv heads default to the heads, head_dim to hidden / heads.
void read_gqa(const HfJson& c, ModelSpec& m) {
  m.kv_heads = c.get_int("num_key_value_heads", m.heads, 1);
  if (m.heads % m.kv_heads != 0)
    c.fail("num_key_value_heads",
           "num_attention_heads (" + std::to_string(m.heads) + ") is not a multiple of " + std::to_string(m.kv_heads));
  m.head_dim = c.get_int("head_dim", m.hidden / m.heads, 1);
  m.attention = m.kv_heads == m.heads ? AttentionKind::kMha : AttentionKind::kGqa;
  // Partial RoPE: partial_rotary_factor (GLM-4.5, Qwen3-Next) or rotary_dim (MiniMax-M2).
  if (c.has("rotary_dim")) {
    const int dim = c.get_int("rotary_dim", m.head_dim, 2);
    if (dim > m.head_dim) c.fail("rotary_dim", std::to_string(dim) + " exceeds head_dim " + std::to_string(m.head_dim));
    m.rope.partial = static_cast<double>(dim) / m.head_dim;
  } else {
    m.rope.partial = c.get_number("partial_rotary_factor", 1);
    if (!(m.rope.partial > 0 && m.rope.partial <= 1))
      c.fail("partial_rotary_factor", "expected a fraction in (0, 1], got " + std::to_string(m.rope.partial));
  }
}

// local[i]: layer i uses the window. Representable: all local, or full exactly on every Nth.
LocalAttention window_from_flags(const HfJson& c, std::string_view key, const std::vector<bool>& local, int size,
                                 WindowKind kind) {
  LocalAttention w{size, kind, 0};
  const auto first_full = std::find(local.begin(), local.end(), false);
  if (first_full == local.end()) return w;
  if (std::none_of(local.begin(), local.end(), [](bool b) { return b; })) return LocalAttention{};
  w.full_every = static_cast<int>(first_full - local.begin()) + 1;
  for (std::size_t i = 0; i < local.size(); ++i)
    if (local[i] != ((static_cast<int>(i) + 1) % w.full_every != 0))
      c.fail(key, "local/full attention pattern is not 'full on every Nth layer'; unsupported");
  return w;
}

void reject_qwen_sliding(const HfJson& c) {
  if (c.get_bool("use_sliding_window", false))
    c.fail("use_sliding_window", "true is not supported (sliding window above max_window_layers)");
}

// The experts as DeepSeek's configs name them (GLM-4.5 kept the names): routed and shared
// experts, experts per token, each expert's intermediate size.
void read_deepseek_experts(const HfJson& c, ModelSpec& m) {
  m.routed_experts = c.require_int("n_routed_experts");
  m.shared_experts = c.get_int("n_shared_experts", 0);
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("moe_intermediate_size");
}

// Group-limited routing (DeepSeek-V3, GLM-4.5): n_group groups of experts, each token within
// topk_group of them; the groups must partition the routed experts.
void read_expert_groups(const HfJson& c, ModelSpec& m) {
  m.expert_groups = c.get_int("n_group", 1, 1);
  m.top_groups = c.get_int("topk_group", m.expert_groups, 1);
  if (m.routed_experts % m.expert_groups != 0 || m.top_groups > m.expert_groups)
    c.fail("n_group", "n_group " + std::to_string(m.expert_groups) + " / topk_group " + std::to_string(m.top_groups) +
                          " do not partition " + std::to_string(m.routed_experts) + " experts");
}

ModelSpec map_deepseek(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  m.attention = AttentionKind::kMla;
  m.rope.interleaved = c.get_bool("rope_interleave", true);  // DeepSeek's checkpoints pair (2i, 2i+1)
  m.mla.q_lora_rank = c.get_int("q_lora_rank", 0);
  m.mla.kv_lora_rank = c.require_int("kv_lora_rank");
  m.mla.qk_nope_head_dim = c.require_int("qk_nope_head_dim");
  m.mla.qk_rope_head_dim = c.require_int("qk_rope_head_dim", 0);
  m.mla.v_head_dim = c.require_int("v_head_dim");
  if (c.has("index_topk")) {  // DeepSeek-V3.2: DSA's lightning indexer
    m.sparse.index_heads = c.require_int("index_n_heads", 1);
    m.sparse.index_head_dim = c.require_int("index_head_dim", 1);
    m.sparse.top_k = c.require_int("index_topk", 1);
  }
  m.dense_intermediate = c.require_int("intermediate_size");
  m.mtp_layers = c.get_int("num_nextn_predict_layers", 0);
  if (!c.has("n_routed_experts")) return m;  // dense
  read_deepseek_experts(c, m);
  // DeepSeek: MoE where i >= first_k_dense_replace and i % moe_layer_freq == 0; the first such
  // layer is first_k rounded up to a multiple of the frequency.
  const int freq = c.get_int("moe_layer_freq", 1, 1);
  const int first_k = c.get_int("first_k_dense_replace", 0);
  m.moe_every = freq;
  m.first_k_dense = std::min(m.num_layers, (first_k + freq - 1) / freq * freq);
  const std::string scoring = c.get_string("scoring_func", "softmax");
  if (scoring != "softmax" && scoring != "sigmoid")
    c.fail("scoring_func", "unknown router scoring '" + scoring + "' (valid: softmax, sigmoid)");
  m.scoring = scoring == "sigmoid" ? RouterScoring::kSigmoid : RouterScoring::kSoftmax;
  m.norm_top_k = c.get_bool("norm_topk_prob", false);
  m.routed_scaling = positive_number(c, "routed_scaling_factor", 1);
  read_expert_groups(c, m);
  return m;
}

ModelSpec map_mixtral(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  m.routed_experts = c.require_int("num_local_experts");
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("intermediate_size");
  if (c.has("sliding_window")) m.window = {c.get_int("sliding_window", 0, 1), WindowKind::kSliding, 0};
  return m;
}

// Qwen2-MoE / Qwen3-MoE: MoE where i is not in mlp_only_layers and (i + 1) % step == 0.
ModelSpec map_qwen_moe(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  reject_qwen_sliding(c);
  m.dense_intermediate = c.get_int("intermediate_size", 0);
  m.routed_experts = c.require_int("num_experts");
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("moe_intermediate_size");
  m.norm_top_k = c.get_bool("norm_topk_prob", false);
  // Qwen2-MoE always has q/k/v biases; Qwen3-MoE has per-head q/k norms and attention_bias.
  const bool qwen2 = c.get_string("model_type", "qwen3_moe") == "qwen2_moe";
  m.qkv_bias = qwen2 || c.get_bool("attention_bias", false);
  m.qk_norm = qwen2 ? QkNorm::kNone : QkNorm::kPerHead;
  const int step = c.get_int("decoder_sparse_step", 1, 1);
  std::vector<int> dense = c.get_int_list("mlp_only_layers");
  std::sort(dense.begin(), dense.end());
  for (std::size_t i = 0; i < dense.size(); ++i)
    if (dense[i] != static_cast<int>(i))
      c.fail("mlp_only_layers", list_text(dense) + " is not a leading run of layers; unsupported");
  int first = static_cast<int>(dense.size());
  while ((first + 1) % step != 0) ++first;
  m.first_k_dense = std::min(first, m.num_layers);
  m.moe_every = step;
  if (const int shared = c.get_int("shared_expert_intermediate_size", 0); shared > 0) {
    if (shared % m.moe_intermediate != 0)
      c.fail(
          "shared_expert_intermediate_size",
          std::to_string(shared) + " is not a multiple of moe_intermediate_size " + std::to_string(m.moe_intermediate));
    m.shared_experts = shared / m.moe_intermediate;
    m.shared_expert_gate = qwen2;
  }
  return m;
}

// Qwen3-Next: Qwen3-MoE's experts (a gated shared expert beside 512 routed ones) under a hybrid
// of Gated DeltaNet layers and gated full attention on every full_attention_interval-th layer
// (or as layer_types lists them).
ModelSpec map_qwen3_next(const HfJson& c) {
  ModelSpec m = map_qwen_moe(c);
  m.shared_expert_gate = m.shared_experts > 0;  // Qwen3NextSparseMoeBlock.shared_expert_gate
  m.output_gate = true;                         // Qwen3NextAttention: q_proj carries the gate
  auto& l = m.linear;
  l.full_every = c.get_int("full_attention_interval", 4, 1);
  const auto types = c.get_string_list("layer_types");
  if (!types.empty()) {
    if (types.size() != static_cast<std::size_t>(m.num_layers))
      c.fail("layer_types", "expected one entry per layer (" + std::to_string(m.num_layers) + ")");
    const auto first_full = std::find(types.begin(), types.end(), "full_attention");
    l.full_every = first_full == types.end() ? 0 : static_cast<int>(first_full - types.begin()) + 1;
    for (std::size_t i = 0; i < types.size(); ++i)
      if (l.full_every == 0 || (types[i] == "full_attention") != ((static_cast<int>(i) + 1) % l.full_every == 0))
        c.fail("layer_types", "linear/full attention pattern is not 'full on every Nth layer'; unsupported");
  }
  l.key_heads = c.require_int("linear_num_key_heads");
  l.value_heads = c.require_int("linear_num_value_heads");
  if (l.value_heads % l.key_heads != 0)
    c.fail("linear_num_value_heads",
           std::to_string(l.value_heads) + " is not a multiple of linear_num_key_heads " + std::to_string(l.key_heads));
  l.key_head_dim = c.require_int("linear_key_head_dim");
  l.value_head_dim = c.require_int("linear_value_head_dim");
  l.conv_kernel = c.get_int("linear_conv_kernel_dim", 4, 1);
  m.mtp_layers = c.get_int("mtp_num_hidden_layers", 0);
  return m;
}

ModelSpec map_olmoe(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  m.routed_experts = c.require_int("num_experts");
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("intermediate_size");
  m.norm_top_k = c.get_bool("norm_topk_prob", false);
  m.qk_norm = QkNorm::kFull;  // OLMoE normalises q and k over all heads
  m.qkv_bias = c.get_bool("attention_bias", false);
  return m;
}

ModelSpec map_gpt_oss(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  m.attention_sinks = true;
  m.qkv_bias = c.get_bool("attention_bias", true);
  m.routed_experts = c.require_int("num_local_experts");
  m.top_k = c.has("num_experts_per_tok") ? c.require_int("num_experts_per_tok") : c.require_int("experts_per_token");
  m.moe_intermediate = c.require_int("intermediate_size");
  if (!c.has("sliding_window")) return m;
  std::vector<bool> local(static_cast<std::size_t>(m.num_layers), true);
  const auto types = c.get_string_list("layer_types");
  if (!types.empty()) {
    if (types.size() != local.size())
      c.fail("layer_types", "expected one entry per layer (" + std::to_string(m.num_layers) + ")");
    for (std::size_t i = 0; i < types.size(); ++i) local[i] = types[i] == "sliding_attention";
  } else {
    for (std::size_t i = 0; i < local.size(); ++i) local[i] = i % 2 == 0;  // GptOssConfig's default
  }
  m.window = window_from_flags(c, "layer_types", local, c.get_int("sliding_window", 0, 1), WindowKind::kSliding);
  return m;
}

ModelSpec map_llama4(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  m.routed_experts = c.require_int("num_local_experts");
  m.shared_experts = 1;
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("intermediate_size");
  m.dense_intermediate = c.get_int("intermediate_size_mlp", 0);
  m.scoring = RouterScoring::kSigmoid;
  m.norm_top_k = false;  // the routed weight is the sigmoid of the chosen logit
  const int step = c.get_int("interleave_moe_layer_step", 1, 1);
  std::vector<int> moe = c.get_int_list("moe_layers");
  if (moe.empty())
    for (int i = step - 1; i < m.num_layers; i += step) moe.push_back(i);
  const int every = moe.size() > 1 ? moe[1] - moe[0] : step;
  for (std::size_t i = 0; i < moe.size(); ++i)
    if (every < 1 || moe[i] != moe[0] + static_cast<int>(i) * every ||
        (i + 1 == moe.size() && moe[i] + every < m.num_layers))
      c.fail("moe_layers", list_text(moe) + " is not every Nth layer to the end; unsupported");
  m.first_k_dense = moe.empty() ? m.num_layers : moe[0];
  m.moe_every = every;
  if (!c.has("attention_chunk_size")) return m;
  std::vector<bool> local(static_cast<std::size_t>(m.num_layers));
  const auto types = c.get_string_list("layer_types");
  const auto rope = c.get_int_list("no_rope_layers");  // 1: RoPE (chunked) layer, 0: NoPE (full)
  const int interval = c.get_int("no_rope_layer_interval", 4, 1);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!types.empty())
      local[i] = i < types.size() && types[i] == "chunked_attention";
    else if (!rope.empty())
      local[i] = i < rope.size() && rope[i] != 0;
    else
      local[i] = (static_cast<int>(i) + 1) % interval != 0;
  }
  m.window = window_from_flags(c, types.empty() ? "no_rope_layers" : "layer_types", local,
                               c.get_int("attention_chunk_size", 0, 1), WindowKind::kChunked);
  return m;
}

// Router fields shared by the sigmoid-routed GQA MoE models (GLM-4.5, MiniMax-M2).
void read_sigmoid_router(const HfJson& c, ModelSpec& m) {
  const std::string scoring = c.get_string("scoring_func", "sigmoid");
  if (scoring != "softmax" && scoring != "sigmoid")
    c.fail("scoring_func", "unknown router scoring '" + scoring + "' (valid: softmax, sigmoid)");
  m.scoring = scoring == "sigmoid" ? RouterScoring::kSigmoid : RouterScoring::kSoftmax;
  m.norm_top_k = c.get_bool("norm_topk_prob", true);
  m.routed_scaling = positive_number(c, "routed_scaling_factor", 1);
}

// GLM-4.5/4.6: DeepSeek-V3's MoE layout (first_k_dense_replace, n_group/topk_group, shared
// experts) under GQA attention with q/k/v biases, optional per-head q/k norms and partial RoPE.
ModelSpec map_glm4_moe(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  m.qkv_bias = c.get_bool("attention_bias", false);
  if (c.get_bool("use_qk_norm", false)) m.qk_norm = QkNorm::kPerHead;
  m.mtp_layers = c.get_int("num_nextn_predict_layers", 0);
  m.dense_intermediate = c.require_int("intermediate_size");
  read_deepseek_experts(c, m);
  m.first_k_dense = std::min(m.num_layers, c.get_int("first_k_dense_replace", 0));
  read_sigmoid_router(c, m);
  read_expert_groups(c, m);
  return m;
}

// MiniMax-M2: every layer MoE (intermediate_size is per expert), q/k norms over all heads
// (qk_norm_type per_layer) or per head, rotary_dim of each head, MTP modules.
ModelSpec map_minimax_m2(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  if (c.get_bool("use_qk_norm", false))
    m.qk_norm = c.get_string("qk_norm_type", "per_layer") == "per_head" ? QkNorm::kPerHead : QkNorm::kFull;
  m.routed_experts = c.require_int("num_local_experts");
  m.top_k = c.require_int("num_experts_per_tok");
  m.moe_intermediate = c.require_int("intermediate_size");
  if (const int shared = c.get_int("shared_intermediate_size", 0); shared > 0) {
    if (shared % m.moe_intermediate != 0)
      c.fail("shared_intermediate_size",
             std::to_string(shared) + " is not a multiple of intermediate_size " + std::to_string(m.moe_intermediate));
    m.shared_experts = shared / m.moe_intermediate;
  }
  if (c.get_bool("use_mtp", false)) m.mtp_layers = c.get_int("num_mtp_modules", 0);
  read_sigmoid_router(c, m);
  return m;
}

ModelSpec map_dense(const HfJson& c) {
  ModelSpec m;
  read_basics(c, m);
  read_gqa(c, m);
  reject_qwen_sliding(c);
  m.dense_intermediate = c.require_int("intermediate_size");
  const std::string type = c.get_string("model_type", "");
  m.qkv_bias = type == "qwen2" || c.get_bool("attention_bias", false);
  if (type == "qwen3") m.qk_norm = QkNorm::kPerHead;
  return m;
}

constexpr HfArchitecture kArchitectures[] = {
    {"DeepseekV3ForCausalLM", &map_deepseek},  {"DeepseekV2ForCausalLM", &map_deepseek},
    {"DeepseekV32ForCausalLM", &map_deepseek}, {"MixtralForCausalLM", &map_mixtral},
    {"Qwen3MoeForCausalLM", &map_qwen_moe},    {"Qwen2MoeForCausalLM", &map_qwen_moe},
    {"Qwen3NextForCausalLM", &map_qwen3_next}, {"OlmoeForCausalLM", &map_olmoe},
    {"GptOssForCausalLM", &map_gpt_oss},       {"Glm4MoeForCausalLM", &map_glm4_moe},
    {"MiniMaxM2ForCausalLM", &map_minimax_m2}, {"Llama4ForConditionalGeneration", &map_llama4, true},
    {"LlamaForCausalLM", &map_dense},          {"Qwen2ForCausalLM", &map_dense},
    {"Qwen3ForCausalLM", &map_dense},
};

}  // namespace

std::span<const HfArchitecture> hf_architecture_table() { return kArchitectures; }

}  // namespace moesim::models
