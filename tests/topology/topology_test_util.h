// Shared helpers for the topology tests.
#pragma once

#include <numeric>
#include <vector>

namespace moesim::topology::testing {

// Ranks 0 .. n-1 on devices 0 .. n-1 (node by node).
inline std::vector<int> identity(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace moesim::topology::testing
