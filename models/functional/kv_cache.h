// The KV cache of one sequence: per layer, the rows of every position processed so far.
//   MHA/GQA  a = keys [positions × kv_heads·head_dim] (after RoPE), b = values (same width).
//   MLA      a = the normalised latent c_kv [positions × kv_lora_rank], b = the shared RoPE key
//            k_pe [positions × qk_rope_head_dim] (after RoPE): what DeepSeek-V2/V3 cache.
// Every layer keeps every position (local-attention layers mask, they do not evict).
#pragma once

#include <cstdint>
#include <vector>

#include "models/functional/tensor.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct LayerCache {
  RowBuffer a, b;
};

class SequenceCache {
 public:
  explicit SequenceCache(const ModelSpec& spec);
  int length() const { return layers_.empty() ? 0 : layers_.front().a.rows(); }
  LayerCache& layer(int i) { return layers_[static_cast<std::size_t>(i)]; }
  const LayerCache& layer(int i) const { return layers_[static_cast<std::size_t>(i)]; }
  std::int64_t bytes() const;

 private:
  std::vector<LayerCache> layers_;
};

}  // namespace moesim::models::functional
