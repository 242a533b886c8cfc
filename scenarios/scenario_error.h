// ScenarioError: the one exception type of the scenarios/ boundary (docs/design.md §6).
//
// what() is one complete line naming where the problem is and what it is, e.g.
//   "scn.yaml:12:7: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?"
//   "--set workload.requests=abc: workload.requests: expected an integer, got 'abc'"
// tools/ catch it once and print what() as is.
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::scenarios {

class ScenarioError : public models::Error {
 public:
  explicit ScenarioError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kScenario, what, std::move(position)) {}
};

}  // namespace moesim::scenarios
