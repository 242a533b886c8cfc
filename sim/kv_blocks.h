// KvBlocks: one rank's paged KV cache (vLLM/SGLang style).
//
// The KV capacity left by the memory plan is cut into blocks of `block_tokens` tokens; a
// request holds ceil(tokens / block_tokens) blocks for the tokens whose K/V it has cached and
// grows one block at a time. Blocks are never shared (prefix-cache hits are allocated per
// request, which is conservative). Blocks in use never exceed the capacity, and are never freed
// more than once (MOESIM_CHECK).
#pragma once

#include <cstdint>

namespace moesim::sim {

class KvBlocks {
 public:
  KvBlocks(std::int64_t capacity_tokens, int block_tokens);

  std::int64_t blocks_for(std::int64_t tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }
  // Grows a holding of `held` blocks to cover `tokens`; false (and no change) if the pool is short.
  // Inline for the common case, a holding that already covers them (a decode token within its
  // last block): no division.
  bool grow(std::int64_t& held, std::int64_t tokens) {
    return tokens <= held * block_tokens_ || add_blocks(held, tokens);
  }
  bool can_hold(std::int64_t extra_blocks) const { return used_ + extra_blocks <= capacity_; }
  void release(std::int64_t& held);

  std::int64_t capacity_blocks() const { return capacity_; }
  std::int64_t used_blocks() const { return used_; }
  std::int64_t peak_blocks() const { return peak_; }
  // Blocks handed out and given back over the object's life (equal once every holding is freed).
  std::int64_t allocated_blocks() const { return allocated_; }
  std::int64_t freed_blocks() const { return freed_; }
  int block_tokens() const { return block_tokens_; }

 private:
  bool add_blocks(std::int64_t& held, std::int64_t tokens);  // grow() past the holding's last block

  std::int64_t capacity_;
  int block_tokens_;
  std::int64_t used_ = 0;
  std::int64_t peak_ = 0;
  std::int64_t allocated_ = 0, freed_ = 0;
};

}  // namespace moesim::sim
