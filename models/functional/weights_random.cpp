#include "models/functional/weights_random.h"

#include <cmath>
#include <string>

#include "models/functional/weight_slots.h"

namespace moesim::models::functional {
namespace {

class Stream {
 public:
  explicit Stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform on [-sqrt(3)·std, sqrt(3)·std): mean 0, standard deviation `std`.
  float uniform(double std) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>((2 * u - 1) * std::sqrt(3.0) * std);
  }

 private:
  std::uint64_t state_;
};

std::uint64_t name_seed(std::uint64_t seed, const std::string& name) {
  std::uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001B3ULL;
  return Stream(seed ^ h).next();
}

template <typename Tensor>
void fill(Tensor& t, Stream& s, double std) {
  for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] = s.uniform(std);
}

}  // namespace

DecoderWeights random_weights(const ModelSpec& spec, const RandomWeightOptions& o) {
  DecoderWeights w;
  for (const WeightSlot& slot : weight_slots(spec, w)) {
    if (slot.matrix)
      slot.matrix->resize(slot.rows, slot.cols);
    else
      slot.vector->resize(slot.rows);
    Stream s(name_seed(o.seed, slot.describe()));
    const auto set = [&](double std) {
      if (slot.matrix)
        fill(*slot.matrix, s, std);
      else
        fill(*slot.vector, s, std);
    };
    switch (slot.role) {
      case WeightRole::kEmbedding: set(1.0); break;
      case WeightRole::kProjection: set(1.0 / std::sqrt(static_cast<double>(slot.cols))); break;
      case WeightRole::kBias: set(0.1); break;
      case WeightRole::kRouter: set(o.router_logit_std / std::sqrt(static_cast<double>(slot.cols))); break;
      case WeightRole::kNorm: slot.vector->setOnes(); break;
      case WeightRole::kScoreBias:
      case WeightRole::kSinks: slot.vector->setZero(); break;
    }
  }
  for (int l = 0; l < spec.num_layers; ++l) {
    if (!spec.is_moe_layer(l)) continue;
    Vector& bias = w.layers[static_cast<std::size_t>(l)].moe.logit_bias;
    bias.resize(spec.routed_experts);
    Stream s(name_seed(o.seed, "layer " + std::to_string(l) + " logit_bias"));
    fill(bias, s, o.expert_bias_std);
  }
  return w;
}

std::int64_t decoder_parameters(const ModelSpec& spec) {
  DecoderWeights w;
  std::int64_t total = 0;
  for (const WeightSlot& slot : weight_slots(spec, w))
    total += static_cast<std::int64_t>(slot.rows) * (slot.cols == 0 ? 1 : slot.cols);
  return total;
}

}  // namespace moesim::models::functional
