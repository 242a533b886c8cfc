#include "models/parallel_shard.h"

namespace moesim::models {

ModelSpec attention_shard(const ModelSpec& m, int tp) {
  if (tp <= 1) return m;
  ModelSpec s = m;
  s.heads = m.heads / tp;
  if (m.attention != AttentionKind::kMla) s.kv_heads = m.kv_heads >= tp ? m.kv_heads / tp : 1;
  s.dense_intermediate = m.dense_intermediate / tp;
  // The DSA indexer's heads split with the attention heads when they divide (their weighted sum
  // is one more reduction); otherwise every rank runs the whole indexer.
  if (m.sparse.enabled() && m.sparse.index_heads % tp == 0) s.sparse.index_heads = m.sparse.index_heads / tp;
  // Gated DeltaNet layers split their key and value heads (and so their state) over TP, as
  // their projections are column- and row-parallel (vLLM, SGLang).
  if (m.linear.enabled()) {
    s.linear.key_heads = m.linear.key_heads / tp;
    s.linear.value_heads = m.linear.value_heads / tp;
  }
  return s;
}

std::string attention_tp_problem(const ModelSpec& m, int tp) {
  if (tp <= 1) return "";
  const std::string t = std::to_string(tp);
  if (m.heads % tp != 0)
    return "attention tp " + t + " does not divide the " + std::to_string(m.heads) + " attention heads of " + m.name;
  if (m.attention != AttentionKind::kMla && m.kv_heads % tp != 0 && tp % m.kv_heads != 0)
    return "attention tp " + t + " neither divides nor is a multiple of the " + std::to_string(m.kv_heads) +
           " KV heads of " + m.name;
  if (m.linear.enabled() && m.linear.key_heads % tp != 0)
    return "attention tp " + t + " does not divide the " + std::to_string(m.linear.key_heads) +
           " linear-attention key heads of " + m.name;
  if (m.num_dense_layers() > 0 && m.dense_intermediate % tp != 0)
    return "attention tp " + t + " does not divide the dense MLP intermediate size " +
           std::to_string(m.dense_intermediate) + " of " + m.name;
  return "";
}

std::string moe_tp_problem(const ModelSpec& m, int tp) {
  if (tp <= 1) return "";
  if (m.routed_experts == 0) return "moe tp " + std::to_string(tp) + " needs routed experts; " + m.name + " is dense";
  if (m.moe_intermediate % tp != 0)
    return "moe tp " + std::to_string(tp) + " does not divide the expert intermediate size " +
           std::to_string(m.moe_intermediate) + " of " + m.name;
  return "";
}

}  // namespace moesim::models
