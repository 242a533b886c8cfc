// ScenarioError: the one exception type of the scenarios/ boundary (docs/design.md §6).
//
// what() is one complete line naming where the problem is and what it is, e.g.
//   "scn.yaml:12:7: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?"
//   "--set workload.requests=abc: workload.requests: expected an integer, got 'abc'"
// tools/ catch it once and print what() as is.
#pragma once

#include <stdexcept>

namespace moesim::scenarios {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace moesim::scenarios
