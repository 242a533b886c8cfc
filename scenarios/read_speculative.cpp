// A pool's `speculative:` map -> sim::SpeculativeConfig (docs/scenario-reference.md,
// "deployment.<pool>.speculative"), with the checks that tie it to the model.
#include "models/parallel_shard.h"
#include "scenarios/read_sections.h"
#include "sim/speculative.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kSpeculativeKeys = {"method", "tokens", "acceptance", "draft_model"};

void read_speculative(const MapReader& m, const Field& key, const models::ModelSpec& model, const PathContext& paths,
                      sim::PoolConfig& p) {
  auto& s = p.speculative;
  if (p.role == sim::PoolRole::kPrefill)
    key.fail_at_key("speculative decoding needs a pool that decodes; the prefill pool only prefills");
  s.method = sim::SpeculativeMethod::kMtp;
  const auto method = m.get("method");
  if (method && as_choice(*method, "speculative method", {"mtp", "draft"}) == "draft")
    s.method = sim::SpeculativeMethod::kDraft;
  s.tokens = 1;
  if (auto f = m.get("tokens")) s.tokens = as_int(*f, 1, 16);

  const Field acceptance = m.require("acceptance");
  s.acceptance.clear();
  if (acceptance.node->kind == YamlNode::Kind::kList) {
    const auto& items = acceptance.node->items;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Field item{&items[i], &items[i].loc, acceptance.path + "[" + std::to_string(i) + "]"};
      s.acceptance.push_back(as_number_in(item, 0, 1));
    }
    if (s.acceptance.size() != static_cast<std::size_t>(s.tokens))
      acceptance.fail("expected one acceptance probability per draft token (" + std::to_string(s.tokens) + "), got " +
                      std::to_string(s.acceptance.size()));
  } else {
    s.acceptance.push_back(as_number_in(acceptance, 0, 1));
  }

  if (s.method == sim::SpeculativeMethod::kMtp) {
    if (m.get("draft_model")) m.get("draft_model")->fail_at_key("a draft_model is used only by method draft");
    if (model.mtp_layers < 1)
      (method ? *method : key)
          .fail_at_key("model " + model.name +
                       " has no MTP module (mtp_layers 0); use method draft with a draft_model");
    return;
  }
  const Field draft = m.require("draft_model");
  s.draft_model = read_model(draft, paths);
  if (const auto why = sim::speculative_problem(p, model); !why.empty()) draft.fail(why);
}

}  // namespace moesim::scenarios
