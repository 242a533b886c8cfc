#include "sim/kv_blocks.h"

#include <algorithm>

#include "sim/check.h"

namespace moesim::sim {

KvBlocks::KvBlocks(std::int64_t capacity_tokens, int block_tokens)
    : capacity_(capacity_tokens / std::max(1, block_tokens)), block_tokens_(std::max(1, block_tokens)) {}

bool KvBlocks::add_blocks(std::int64_t& held, std::int64_t tokens) {
  const std::int64_t need = blocks_for(tokens) - held;
  if (need <= 0) return true;
  if (used_ + need > capacity_) return false;
  used_ += need;
  allocated_ += need;
  held += need;
  peak_ = std::max(peak_, used_);
  return true;
}

void KvBlocks::release(std::int64_t& held) {
  MOESIM_CHECK(held >= 0 && held <= used_, "KV blocks released twice");
  used_ -= held;
  freed_ += held;
  held = 0;
}

}  // namespace moesim::sim
