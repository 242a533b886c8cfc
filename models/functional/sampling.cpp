#include "models/functional/sampling.h"

#include <cmath>
#include <vector>

namespace moesim::models::functional {

double Sampler::uniform() {
  // splitmix64 (Steele, Lea & Flood 2014); the top 53 bits as a double in [0, 1).
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

int Sampler::sample(const Eigen::Ref<const Eigen::RowVectorXf>& logits) {
  Eigen::Index best = 0;
  for (Eigen::Index i = 1; i < logits.size(); ++i)
    if (logits(i) > logits(best)) best = i;
  if (temperature_ <= 0) return static_cast<int>(best);
  std::vector<double> cdf(static_cast<std::size_t>(logits.size()));
  double sum = 0;
  for (Eigen::Index i = 0; i < logits.size(); ++i)
    cdf[static_cast<std::size_t>(i)] = sum += std::exp((logits(i) - logits(best)) / temperature_);
  const double u = uniform() * sum;
  for (std::size_t i = 0; i < cdf.size(); ++i)
    if (u < cdf[i]) return static_cast<int>(i);
  return static_cast<int>(cdf.size()) - 1;
}

}  // namespace moesim::models::functional
