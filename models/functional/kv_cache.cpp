#include "models/functional/kv_cache.h"

namespace moesim::models::functional {

SequenceCache::SequenceCache(const ModelSpec& s) {
  const bool mla = s.attention == AttentionKind::kMla;
  const int a = mla ? s.mla.kv_lora_rank : s.kv_heads * s.head_dim;
  const int b = mla ? s.mla.qk_rope_head_dim : s.kv_heads * s.head_dim;
  layers_.resize(static_cast<std::size_t>(s.num_layers), LayerCache{RowBuffer(a), RowBuffer(b)});
}

std::int64_t SequenceCache::bytes() const {
  std::int64_t total = 0;
  for (const auto& l : layers_) total += l.a.bytes() + l.b.bytes();
  return total;
}

}  // namespace moesim::models::functional
