// Helpers for the scenario loader tests: a minimal valid scenario and "the error it throws".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader.h"

namespace moesim::scenarios::testing {

// Valid: tiny-moe (16 experts) on one 8-device HGX node, one pool of 8 ranks.
inline constexpr std::string_view kMinimal =
    "model: tiny-moe\n"
    "hardware: h800\n"
    "cluster: {nodes: 1}\n"
    "deployment:\n"
    "  colocated:\n"
    "    ranks: 8\n";

// The ScenarioError message of loading `yaml` as "scn.yaml", or "<no error>".
inline std::string load_error(std::string_view yaml, const std::vector<std::string>& overrides = {}) {
  try {
    load_scenario_string(yaml, "scn.yaml", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<no error>";
}

template <typename Entries>
std::string valid_names(const Entries& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace moesim::scenarios::testing
