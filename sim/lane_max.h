// max_of: the largest of per-rank values, as the step model asks for it several times per layer.
//
// std::max_element walks the ranks in one chain of dependent comparisons; four independent lanes
// cut that chain fourfold. Times are never NaN, so the lanes' maximum is the same value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

namespace moesim::sim {

// The largest of `v` (0 when empty).
inline double max_of(std::span<const double> v) {
  const std::size_t n = v.size();
  if (n < 4) return n == 0 ? 0.0 : *std::max_element(v.begin(), v.end());
  double lane[4] = {v[0], v[1], v[2], v[3]};
  std::size_t r = 4;
  for (; r + 4 <= n; r += 4)
    for (std::size_t k = 0; k < 4; ++k) lane[k] = std::max(lane[k], v[r + k]);
  for (; r < n; ++r) lane[0] = std::max(lane[0], v[r]);
  return std::max(std::max(lane[0], lane[1]), std::max(lane[2], lane[3]));
}

}  // namespace moesim::sim
