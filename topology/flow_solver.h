// Flow-level network model: max-min fair rates by progressive filling (water-filling), re-solved
// whenever flows finish, until every flow is done (Bertsekas & Gallager, Data Networks, §6.5).
//
// A flow crosses links with fractions (ECMP splits a flow over equal-cost paths); at rate r it
// uses fraction × r of each link. Flows that would finish before (now + earliest) × (1 +
// batch_tolerance), and at least the earliest-finishing eighth of them, complete together at
// the latest of their finish times; their capacity is
// released only then, so the result stays an upper bound on exact max-min completion (and hence
// never below the analytic load/capacity bound) while the number of re-solves stays small.
#pragma once

#include <vector>

namespace moesim::topology {

struct FlowProblem {
  std::vector<double> capacity;  // bytes per second, per link
  std::vector<double> bytes;     // per flow
  std::vector<int> offset{0};    // flow f uses hops [offset[f], offset[f + 1])
  std::vector<int> link;
  std::vector<double> fraction;

  void add_flow(double flow_bytes) {
    bytes.push_back(flow_bytes);
    offset.push_back(static_cast<int>(link.size()));
  }
  void add_hop(int l, double f) {
    link.push_back(l);
    fraction.push_back(f);
    ++offset.back();
  }
};

// Time until the last flow finishes, in seconds.
double max_min_completion_s(const FlowProblem& problem, double batch_tolerance = 0.05);

}  // namespace moesim::topology
