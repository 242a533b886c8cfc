#include "sim/overlap.h"

namespace moesim::sim {

std::vector<OverlapSchemeInfo> overlap_schemes() {
  return {
      {"none", OverlapScheme::kNone, "every phase in sequence; all communication exposed"},
      {"shared-expert", OverlapScheme::kSharedExpert, "shared expert computes while dispatch is in flight"},
      {"two-batch", OverlapScheme::kTwoBatch,
       "two micro-batches: one communicates while the other computes (DeepSeek/SGLang TBO)"},
  };
}

std::optional<OverlapScheme> parse_overlap_scheme(std::string_view name) {
  for (const auto& s : overlap_schemes())
    if (s.name == name) return s.scheme;
  return std::nullopt;
}

std::string_view to_string(OverlapScheme scheme) {
  for (const auto& s : overlap_schemes())
    if (s.scheme == scheme) return s.name;
  return "?";
}

}  // namespace moesim::sim
