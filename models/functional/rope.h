// Rotary position embedding (Su et al. 2021) with optional YaRN frequency scaling (Peng et al.
// 2023), as models/model_spec.h (RopeSpec) describes. A RopeTable holds the inverse frequencies
// of one rotary width; rotate() turns every `dim`-wide head of a row in place by the row's
// position.
#pragma once

#include <span>
#include <vector>

#include "models/functional/tensor.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

class RopeTable {
 public:
  RopeTable() = default;
  RopeTable(const RopeSpec& spec, int dim);

  int dim() const { return dim_; }
  const std::vector<double>& inverse_frequencies() const { return inv_freq_; }
  // cos/sin multiplier: m(mscale) / m(mscale_all_dim) with YaRN, else 1.
  double amplitude() const { return amplitude_; }
  // Extra softmax-scale factor MLA applies with YaRN: m(mscale_all_dim)^2 (1 without YaRN).
  double softmax_factor() const { return softmax_factor_; }

  // Rotates, in each row r, `heads` spans of dim columns starting at first_col, first_col +
  // stride, ... (stride 0 = dim: heads side by side) by position positions[r].
  void rotate(Matrix& x, std::span<const int> positions, int first_col, int heads, int stride = 0) const;

 private:
  int dim_ = 0;
  bool interleaved_ = false;
  std::vector<double> inv_freq_;
  double amplitude_ = 1;
  double softmax_factor_ = 1;
};

// YaRN's attention-temperature term m(a) = 0.1 a ln(factor) + 1 (1 when factor <= 1 or a = 0).
double yarn_mscale(double factor, double a);

}  // namespace moesim::models::functional
