// A pool's `speculative:` map -> sim::SpeculativeConfig (docs/scenario-reference.md,
// "deployment.<pool>.speculative"). The rules that tie it to the pool and the model are
// sim::speculative_problem()'s, which read_pool() reports at these keys.
#include "scenarios/read_sections.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kSpeculativeKeys = {"method", "tokens", "acceptance", "draft_model"};

void read_speculative(const MapReader& m, const PathContext& paths, sim::PoolConfig& p) {
  auto& s = p.speculative;
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
  } else {
    s.acceptance.push_back(as_number_in(acceptance, 0, 1));
  }

  if (s.method == sim::SpeculativeMethod::kMtp) {
    if (m.get("draft_model")) m.get("draft_model")->fail_at_key("a draft_model is used only by method draft");
    return;
  }
  s.draft_model = read_model(m.require("draft_model"), paths);
}

}  // namespace moesim::scenarios
