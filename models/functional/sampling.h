// Next-token sampling from a row of logits: greedy (temperature 0: the largest logit, ties to
// the lower id) or temperature sampling (softmax(logits / T), drawn by inverse CDF from a
// splitmix64 stream, so a seed gives the same tokens on every platform).
#pragma once

#include <cstdint>

#include "models/functional/tensor.h"

namespace moesim::models::functional {

class Sampler {
 public:
  Sampler(double temperature, std::uint64_t seed) : temperature_(temperature), state_(seed) {}
  int sample(const Eigen::Ref<const Eigen::RowVectorXf>& logits);
  double uniform();  // [0, 1)

 private:
  double temperature_;
  std::uint64_t state_;
};

}  // namespace moesim::models::functional
