#include "sim/speculative.h"

#include "models/parallel_shard.h"

namespace moesim::sim {

const char* to_string(SpeculativeMethod method) {
  switch (method) {
    case SpeculativeMethod::kNone: return "none";
    case SpeculativeMethod::kMtp: return "mtp";
    case SpeculativeMethod::kDraft: return "draft";
  }
  return "?";
}

double acceptance_at(const SpeculativeConfig& spec, int position) {
  if (spec.acceptance.empty()) return 0.0;
  const auto i = static_cast<std::size_t>(position);
  return i < spec.acceptance.size() ? spec.acceptance[i] : spec.acceptance.back();
}

double expected_emitted_tokens(const SpeculativeConfig& spec) {
  if (!spec.enabled()) return 1.0;
  double reach = 1.0, total = 1.0;
  for (int i = 0; i < spec.tokens; ++i) {
    reach *= acceptance_at(spec, i);
    total += reach;
  }
  return total;
}

int draw_accepted(const SpeculativeConfig& spec, workloads::Rng& rng) {
  int accepted = 0;
  while (accepted < spec.tokens) {
    const double u = workloads::unit_uniform(rng);
    if (u >= acceptance_at(spec, accepted)) break;
    ++accepted;
  }
  return accepted;
}

std::optional<DeploymentProblem> speculative_problem(const PoolConfig& pool, const models::ModelSpec& model) {
  const SpeculativeConfig& s = pool.speculative;
  const auto problem = [](PoolField field, std::string message) {
    return std::optional<DeploymentProblem>(DeploymentProblem{field, std::move(message)});
  };
  if (s.method == SpeculativeMethod::kNone) return std::nullopt;
  if (pool.role == PoolRole::kPrefill)
    return problem(PoolField::kSpeculative,
                   "speculative decoding needs a pool that decodes; the prefill pool only prefills");
  if (s.tokens < 1) return problem(PoolField::kSpeculative, "speculative decoding needs at least one draft token");
  if (s.acceptance.size() != 1 && s.acceptance.size() != static_cast<std::size_t>(s.tokens))
    return problem(PoolField::kSpeculativeAcceptance,
                   "speculative acceptance needs one value or one per draft token (" + std::to_string(s.tokens) +
                       "), got " + std::to_string(s.acceptance.size()));
  for (double a : s.acceptance)
    if (!(a >= 0 && a <= 1))
      return problem(PoolField::kSpeculativeAcceptance,
                     "speculative acceptance " + std::to_string(a) + " is not a probability");
  if (s.method == SpeculativeMethod::kMtp && model.mtp_layers < 1)
    return problem(PoolField::kSpeculativeMethod,
                   "model " + model.name + " has no MTP module (mtp_layers 0); use method draft with a draft_model");
  if (s.method == SpeculativeMethod::kDraft) {
    const models::ModelSpec& d = s.draft_model;
    const auto draft = [&](std::string message) {
      return problem(PoolField::kSpeculativeDraftModel, std::move(message));
    };
    if (d.num_layers < 1) return draft("speculative method draft needs a draft_model");
    if (d.routed_experts > 0)
      return draft("draft model " + d.name + " has routed experts; only dense draft models are modelled");
    if (d.vocab != model.vocab)
      return draft("draft model " + d.name + " has a vocabulary of " + std::to_string(d.vocab) + " tokens, " +
                   model.name + " of " + std::to_string(model.vocab) + "; drafts must share the target's vocabulary");
    if (const auto why = models::attention_tp_problem(d, pool.attention_tp); !why.empty())
      return draft("draft model: " + why);
  }
  return std::nullopt;
}

}  // namespace moesim::sim
