#include "models/model_yaml.h"

#include <fstream>
#include <sstream>

#include "models/model_limits.h"
#include "models/yaml_reader.h"

namespace moesim::models {
namespace {

DType read_dtype(const MapReader& map, std::string_view key, DType fallback) {
  const auto f = map.get(key);
  if (!f) return fallback;
  return *parse_dtype(as_choice(*f, "dtype", dtype_names()));
}

int read_int(const MapReader& map, std::string_view key, int min, int fallback, int max = INT_MAX) {
  const auto f = map.get(key);
  return f ? as_int(*f, min, max) : fallback;
}

void reject_keys(const MapReader& map, std::initializer_list<std::string_view> keys, std::string_view why) {
  for (std::string_view key : keys)
    if (const auto f = map.get(key)) f->fail(std::string(why));
}

void read_window(const MapReader& attention, ModelSpec& m) {
  if (!attention.has("window")) return;
  const MapReader w = attention.map("window", {"size", "kind", "full_every"});
  m.window.size = as_int(w.require("size"), 1);
  if (const auto kind = w.get("kind"))
    m.window.kind = as_choice(*kind, "window kind", {"sliding", "chunked"}) == "chunked" ? WindowKind::kChunked
                                                                                         : WindowKind::kSliding;
  m.window.full_every = read_int(w, "full_every", 0, 0);
}

// Gated DeltaNet layers (ModelSpec::linear): every layer but each full_every-th.
void read_linear(const MapReader& attention, ModelSpec& m) {
  if (!attention.has("linear")) return;
  if (const auto f = attention.get("window")) f->fail("a model with linear attention has no local windows");
  const MapReader x = attention.map("linear", {"full_every", "key_heads", "value_heads", "key_head_dim",
                                               "value_head_dim", "conv_kernel", "state_dtype"});
  auto& l = m.linear;
  l.full_every = as_int(x.require("full_every"), 1);
  l.key_heads = as_int(x.require("key_heads"), 1);
  const Field v = x.require("value_heads");
  l.value_heads = as_int(v, 1);
  if (l.value_heads % l.key_heads != 0)
    v.fail("value_heads (" + std::to_string(l.value_heads) + ") must be a multiple of key_heads (" +
           std::to_string(l.key_heads) + ")");
  l.key_head_dim = as_int(x.require("key_head_dim"), 1);
  l.value_head_dim = as_int(x.require("value_head_dim"), 1);
  if (const auto f = x.get("conv_kernel")) l.conv_kernel = as_int(*f, 1, 64);
  if (const auto f = x.get("state_dtype")) l.state_dtype = *parse_dtype(as_choice(*f, "dtype", dtype_names()));
}

double read_number(const MapReader& map, std::string_view key, double min, double fallback, bool inclusive = true) {
  const auto f = map.get(key);
  if (!f) return fallback;
  const double v = as_number(*f);
  if (inclusive ? v < min : v <= min)
    f->fail(std::string("expected a number ") + (inclusive ? ">= " : "> ") + std::to_string(static_cast<int>(min)) +
            ", got " + f->node->scalar);
  return v;
}

void read_rope(const MapReader& top, ModelSpec& m) {
  const MapReader r = top.map("rope", {"theta", "interleaved", "partial", "yarn"});
  m.rope.theta = read_number(r, "theta", 1, m.rope.theta, false);
  if (const auto f = r.get("partial")) {
    m.rope.partial = as_number(*f);
    if (!(m.rope.partial > 0 && m.rope.partial <= 1)) f->fail("expected a fraction in (0, 1], got " + f->node->scalar);
  }
  if (const auto f = r.get("interleaved")) m.rope.interleaved = as_bool(*f);
  if (!r.has("yarn")) return;
  const MapReader y =
      r.map("yarn", {"factor", "original_context", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate"});
  auto& p = m.rope;
  p.yarn_factor = read_number(y, "factor", 1, 1);
  p.yarn_original_context = read_int(y, "original_context", 1, p.yarn_original_context);
  p.yarn_beta_fast = read_number(y, "beta_fast", 0, p.yarn_beta_fast, false);
  p.yarn_beta_slow = read_number(y, "beta_slow", 0, p.yarn_beta_slow, false);
  p.yarn_mscale = read_number(y, "mscale", 0, p.yarn_mscale);
  p.yarn_mscale_all_dim = read_number(y, "mscale_all_dim", 0, p.yarn_mscale_all_dim);
  if (const auto f = y.get("truncate")) p.yarn_truncate = as_bool(*f);
}

void read_attention(const MapReader& top, ModelSpec& m) {
  const MapReader a = top.map(
      "attention",
      {"kind", "heads", "kv_heads", "head_dim", "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
       "v_head_dim", "sparse", "window", "sinks", "qk_norm", "qkv_bias", "linear", "output_gate"},
      true);
  const std::string kind = as_choice(a.require("kind"), "attention kind", {"mha", "gqa", "mla"});
  m.heads = as_int(a.require("heads"), 1);
  if (kind == "mla") {
    reject_keys(a, {"kv_heads", "head_dim"}, "only for mha/gqa attention (mla uses the lora and head dims)");
    reject_keys(a, {"linear", "output_gate"}, "only for mha/gqa attention");
    m.attention = AttentionKind::kMla;
    m.mla.q_lora_rank = read_int(a, "q_lora_rank", 0, 0);
    m.mla.kv_lora_rank = as_int(a.require("kv_lora_rank"), 1);
    m.mla.qk_nope_head_dim = as_int(a.require("qk_nope_head_dim"), 1);
    m.mla.qk_rope_head_dim = as_int(a.require("qk_rope_head_dim"), 0);
    m.mla.v_head_dim = as_int(a.require("v_head_dim"), 1);
    if (a.has("sparse")) {  // DSA (DeepSeek-V3.2): a lightning indexer, then top-k attention
      const MapReader x = a.map("sparse", {"index_heads", "index_head_dim", "top_k"});
      m.sparse.index_heads = as_int(x.require("index_heads"), 1);
      m.sparse.index_head_dim = as_int(x.require("index_head_dim"), 1);
      m.sparse.top_k = as_int(x.require("top_k"), 1);
    }
  } else {
    reject_keys(a, {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sparse"},
                "only for mla attention");
    m.attention = kind == "mha" ? AttentionKind::kMha : AttentionKind::kGqa;
    m.head_dim = as_int(a.require("head_dim"), 1);
    if (kind == "mha") {
      m.kv_heads = m.heads;
      if (const auto f = a.get("kv_heads"); f && as_int(*f, 1) != m.heads)
        f->fail("mha attention has one KV head per head (" + std::to_string(m.heads) + "); use kind: gqa");
    } else {
      const Field f = a.require("kv_heads");
      m.kv_heads = as_int(f, 1, m.heads);
      if (m.heads % m.kv_heads != 0)
        f.fail("heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" + std::to_string(m.kv_heads) +
               ")");
    }
  }
  read_window(a, m);
  read_linear(a, m);
  if (const auto f = a.get("output_gate")) m.output_gate = as_bool(*f);
  if (const auto f = a.get("sinks")) m.attention_sinks = as_bool(*f);
  if (const auto f = a.get("qk_norm")) {
    const std::string v = as_choice(*f, "qk_norm", {"none", "head", "full"});
    if (v != "none" && m.attention == AttentionKind::kMla) f->fail("mla attention has no query/key norm");
    m.qk_norm = v == "head" ? QkNorm::kPerHead : v == "full" ? QkNorm::kFull : QkNorm::kNone;
  }
  if (const auto f = a.get("qkv_bias")) {
    m.qkv_bias = as_bool(*f);
    if (m.qkv_bias && m.attention == AttentionKind::kMla) f->fail("mla attention has no q/k/v biases");
  }
}

void read_moe(const MapReader& top, ModelSpec& m) {
  if (!top.has("moe")) return;
  const MapReader e =
      top.map("moe", {"routed_experts", "shared_experts", "top_k", "intermediate", "first_k_dense", "every", "scoring",
                      "groups", "top_groups", "normalize_top_k", "routed_scaling", "shared_expert_gate"});
  m.routed_experts = as_int(e.require("routed_experts"), 1, kMaxRoutedExperts);
  m.shared_experts = read_int(e, "shared_experts", 0, 0, kMaxRoutedExperts);
  m.top_k = as_int(e.require("top_k"), 1, m.routed_experts);
  m.moe_intermediate = as_int(e.require("intermediate"), 1);
  m.first_k_dense = read_int(e, "first_k_dense", 0, 0, m.num_layers);
  m.moe_every = read_int(e, "every", 1, 1);
  if (const auto f = e.get("scoring"))
    m.scoring = as_choice(*f, "router scoring", {"softmax", "sigmoid"}) == "sigmoid" ? RouterScoring::kSigmoid
                                                                                     : RouterScoring::kSoftmax;
  if (const auto f = e.get("groups")) {
    m.expert_groups = as_int(*f, 1, m.routed_experts);
    if (m.routed_experts % m.expert_groups != 0)
      f->fail("routed_experts (" + std::to_string(m.routed_experts) + ") must be a multiple of groups (" +
              std::to_string(m.expert_groups) + ")");
  }
  m.top_groups = read_int(e, "top_groups", 1, m.expert_groups, m.expert_groups);
  if (const auto f = e.get("normalize_top_k")) m.norm_top_k = as_bool(*f);
  m.routed_scaling = read_number(e, "routed_scaling", 0, m.routed_scaling, false);
  if (const auto f = e.get("shared_expert_gate")) {
    m.shared_expert_gate = as_bool(*f);
    if (m.shared_expert_gate && m.shared_experts == 0) f->fail("a shared-expert gate needs shared_experts >= 1");
  }
  const int reachable = m.top_groups * (m.routed_experts / m.expert_groups);
  if (m.top_k > reachable)
    e.require("top_k").fail("top_k (" + std::to_string(m.top_k) + ") exceeds the " + std::to_string(reachable) +
                            " experts of the top " + std::to_string(m.top_groups) + " groups");
}

void read_dtypes(const MapReader& top, ModelSpec& m) {
  const MapReader d = top.map("dtypes", {"weights", "experts", "kv_cache", "dispatch", "combine", "activations"});
  m.weight_dtype = read_dtype(d, "weights", m.weight_dtype);
  if (d.has("experts")) m.expert_weight_dtype = read_dtype(d, "experts", m.weight_dtype);
  m.kv_dtype = read_dtype(d, "kv_cache", m.kv_dtype);
  m.dispatch_dtype = read_dtype(d, "dispatch", m.dispatch_dtype);
  m.combine_dtype = read_dtype(d, "combine", m.combine_dtype);
  m.activation_dtype = read_dtype(d, "activations", m.activation_dtype);
}

ModelSpec read_model(const YamlNode& doc) {
  const MapReader top(doc, "",
                      {"name", "description", "source", "layers", "hidden", "vocab", "tie_embeddings", "mtp_layers",
                       "norm_eps", "rope", "attention", "mlp", "moe", "dtypes"});
  ModelSpec m;
  m.name = as_string(top.require("name"));
  if (const auto f = top.get("description")) m.description = as_string(*f);
  m.source = top.has("source") ? as_string(*top.get("source")) : doc.loc.origin;
  m.num_layers = as_int(top.require("layers"), 1, kMaxLayers);
  m.hidden = as_int(top.require("hidden"), 1);
  m.vocab = as_int(top.require("vocab"), 1);
  if (const auto f = top.get("tie_embeddings")) m.tie_embeddings = as_bool(*f);
  m.mtp_layers = read_int(top, "mtp_layers", 0, 0, kMaxLayers);
  m.norm_eps = read_number(top, "norm_eps", 0, m.norm_eps, false);
  read_rope(top, m);
  read_attention(top, m);
  if (m.attention == AttentionKind::kMla && m.rope.partial != 1)
    top.map("rope", {"theta", "interleaved", "partial", "yarn"})
        .get("partial")
        ->fail("mla attention turns its qk_rope_head_dim; partial is for mha/gqa heads");
  read_moe(top, m);
  const MapReader mlp = top.map("mlp", {"intermediate"});
  if (const auto f = mlp.get("intermediate"))
    m.dense_intermediate = as_int(*f, 1);
  else if (m.num_dense_layers() > 0)
    mlp.fail("missing required key 'intermediate' (" + std::to_string(m.num_dense_layers()) + " of the " +
             std::to_string(m.num_layers) + " layers have a dense MLP)");
  read_dtypes(top, m);
  return m;
}

}  // namespace

ModelSpec load_model_yaml(std::string_view text, std::string_view source_name) {
  try {
    return read_model(parse_yaml(text, std::string(source_name), true));
  } catch (const YamlError& e) {
    throw ModelError(e.what(), e.position());
  }
}

ModelSpec load_model_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string() + ": cannot open model file");
  std::ostringstream text;
  text << in.rdbuf();
  return load_model_yaml(text.str(), path.string());
}

}  // namespace moesim::models
