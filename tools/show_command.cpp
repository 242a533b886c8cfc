// `moesim show model NAME`: the architecture, parameter counts, FLOPs per token and the per-rank
// memory table of a deployment (a what-if at the model level).
#include <cstdio>
#include <memory>
#include <string>

#include "calibration/hardware_profile.h"
#include "models/did_you_mean.h"
#include "models/layer_ops.h"
#include "models/memory.h"
#include "models/presets.h"
#include "tools/commands.h"

namespace moesim::tools {
namespace {

struct ShowOptions {
  std::string model;
  int ep = 1;
  int tp = 1;
  int dp = 1;
  std::string device = "h800";
  std::int64_t context = 4096;
  std::int64_t token_budget = 4096;
};

template <typename Entries>
std::vector<std::string_view> names_of(const Entries& entries) {
  std::vector<std::string_view> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

const char* attention_name(models::AttentionKind k) {
  switch (k) {
    case models::AttentionKind::kMha: return "MHA";
    case models::AttentionKind::kGqa: return "GQA";
    case models::AttentionKind::kMla: return "MLA";
  }
  return "?";
}

int show_model(const ShowOptions& o) {
  const auto spec = models::find_model_preset(o.model);
  if (!spec)
    throw UsageError("show model: " +
                     models::unknown_name_message("model", o.model, names_of(models::model_presets())));
  const auto hw = calibration::find_hardware_preset(o.device);
  if (!hw)
    throw UsageError("--device: " +
                     models::unknown_name_message("hardware", o.device, names_of(calibration::hardware_presets())));
  const auto& m = *spec;
  const auto p = models::count_parameters(m);
  std::printf("%s  (%s)\n", m.name.c_str(), m.source.c_str());
  std::printf("  layers %d (%d dense, %d MoE), hidden %d, vocab %d, %s attention with %d heads\n", m.num_layers,
              m.num_dense_layers(), m.num_moe_layers(), m.hidden, m.vocab, attention_name(m.attention), m.heads);
  if (m.sparse.enabled())
    std::printf(
        "  sparse attention (DSA): a %d-head indexer (%d wide) scores every cached token, the core attends to "
        "the top %d\n",
        m.sparse.index_heads, m.sparse.index_head_dim, m.sparse.top_k);
  if (m.linear.enabled())
    std::printf(
        "  linear attention (Gated DeltaNet) on %d of %d layers (full attention on every %d%s): %d value "
        "heads of %dx%d state, %.1f MiB per sequence\n",
        m.num_linear_layers(), m.num_layers, m.linear.full_every,
        m.linear.full_every == 2   ? "nd"
        : m.linear.full_every == 3 ? "rd"
                                   : "th",
        m.linear.value_heads, m.linear.key_head_dim, m.linear.value_head_dim,
        m.state_bytes_per_sequence() / (1024.0 * 1024.0));
  if (m.routed_experts > 0)
    std::printf("  MoE: %d routed + %d shared experts of width %d, top-%d\n", m.routed_experts, m.shared_experts,
                m.moe_intermediate, m.top_k);
  const std::string experts =
      m.expert_dtype() != m.weight_dtype ? ", routed experts " + std::string(models::to_string(m.expert_dtype())) : "";
  std::printf("  dtypes: weights %s%s, KV %s, dispatch %s, combine %s\n",
              std::string(models::to_string(m.weight_dtype)).c_str(), experts.c_str(),
              std::string(models::to_string(m.kv_dtype)).c_str(),
              std::string(models::to_string(m.dispatch_dtype)).c_str(),
              std::string(models::to_string(m.combine_dtype)).c_str());
  std::printf("\n  parameters          %10.2f B total, %.2f B activated per token\n", p.total() * 1e-9,
              p.activated * 1e-9);
  std::printf(
      "    attention         %10.2f B\n    dense MLP         %10.2f B\n    routed experts    %10.2f B\n"
      "    shared experts    %10.2f B\n    routers           %10.2f B\n    embedding+head    %10.2f B\n",
      p.attention * 1e-9, p.dense_mlp * 1e-9, p.routed_experts * 1e-9, p.shared_experts * 1e-9, p.routers * 1e-9,
      p.embedding * 1e-9);
  // Matmul FLOPs: 2 per activated weight (the embedding lookup is not a matmul), plus the
  // attention core over `context` cached positions in every layer (within its window; a linear
  // layer's recurrence whatever the context).
  const double matmul = 2.0 * static_cast<double>(p.activated - static_cast<std::int64_t>(m.hidden));
  const double core = models::attention_decode_all_layers(m, o.context).flops;
  std::printf("\n  FLOPs per decode token at context %lld: %.1f GFLOP (matmuls %.1f + attention core %.1f)\n",
              static_cast<long long>(o.context), (matmul + core) * 1e-9, matmul * 1e-9, core * 1e-9);
  std::printf("  KV cache per token: %.1f KiB (%.0f B per layer%s)\n", m.kv_bytes_per_token() / 1024.0,
              m.kv_bytes_per_token_per_layer(), m.linear.enabled() ? ", full-attention layers only" : "");

  models::MemoryOptions mem;
  mem.ep = o.ep;
  mem.attention_tp = o.tp;
  mem.token_budget_per_rank = o.token_budget;
  mem.capacity_bytes = hw->hbm_bytes;
  const auto plan = models::plan_rank_memory(m, mem);
  std::printf("\n  memory per rank on %s (ep %d, attention tp %d, dp %d, budget %lld tokens):\n%s\n", hw->name.c_str(),
              o.ep, o.tp, o.dp, static_cast<long long>(o.token_budget), plan.table().c_str());
  if (!plan.fits()) std::printf("  does not fit: out of memory\n");
  return 0;
}

}  // namespace

Command add_show_command(CLI::App& app) {
  auto o = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand("show", "Show a preset: parameters, FLOPs per token, memory per rank");
  auto* model = cmd->add_subcommand("model", "Show a model preset");
  model->add_option("name", o->model, "Model preset (see 'moesim list')")->required();
  model->add_option("--ep", o->ep, "Expert-parallel degree")->check(CLI::Range(1, 1 << 20));
  model->add_option("--tp", o->tp, "Attention tensor-parallel degree")->check(CLI::Range(1, 1 << 10));
  model->add_option("--dp", o->dp, "Attention data-parallel degree")->check(CLI::Range(1, 1 << 20));
  model->add_option("--device", o->device, "Hardware preset for the memory table");
  model->add_option("--context", o->context, "KV length for FLOPs per token")->check(CLI::Range(1, 1 << 30));
  model->add_option("--token-budget", o->token_budget, "Tokens per rank per step (activation sizing)")
      ->check(CLI::Range(1, 1 << 30));
  cmd->require_subcommand(1);
  return {cmd, [o] { return show_model(*o); }};
}

}  // namespace moesim::tools
