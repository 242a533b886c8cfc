#include "sim/prefix_cache.h"

namespace moesim::sim {

PrefixCacheStats& PrefixCacheStats::operator+=(const PrefixCacheStats& o) {
  lookups += o.lookups;
  prompt_tokens += o.prompt_tokens;
  hit_tokens += o.hit_tokens;
  inserted_blocks += o.inserted_blocks;
  evicted_blocks += o.evicted_blocks;
  resident_blocks += o.resident_blocks;
  host_hit_tokens += o.host_hit_tokens;
  remote_hit_tokens += o.remote_hit_tokens;
  offloaded_blocks += o.offloaded_blocks;
  host_loaded_bytes += o.host_loaded_bytes;
  remote_loaded_bytes += o.remote_loaded_bytes;
  loads += o.loads;
  load_wait_s += o.load_wait_s;
  host_resident_blocks += o.host_resident_blocks;
  remote_resident_blocks += o.remote_resident_blocks;
  return *this;
}

std::int64_t PrefixCache::peek(const workloads::PrefixKey& key, std::int64_t tokens) const {
  return run_from(key, tokens, 0);
}

std::int64_t PrefixCache::match(const workloads::PrefixKey& key, std::int64_t tokens) {
  const std::int64_t hit = peek(key, tokens);
  for (std::int64_t j = hit - 1; j >= 0; --j) touch(key.block(j, block_tokens_));
  return hit;
}

void PrefixCache::insert(const workloads::PrefixKey& key, std::int64_t tokens, std::int64_t capacity_blocks) {
  for (std::int64_t j = key.blocks(tokens, block_tokens_) - 1; j >= 0; --j) touch(key.block(j, block_tokens_));
  fit(capacity_blocks);
}

void PrefixCache::fit(std::int64_t capacity_blocks) {
  while (size() > capacity_blocks && tail_ != kNone) {
    const std::uint32_t n = tail_;
    const std::uint64_t name = nodes_[n].name;
    unlink(n);
    index_.erase(name);
    free_.push_back(n);
    ++evicted_;
    if (lower_) lower_->receive(name);
  }
}

void PrefixCache::receive(std::uint64_t name) {
  ++received_;
  touch(name);
  fit(capacity_);
}

std::int64_t PrefixCache::run_from(const workloads::PrefixKey& key, std::int64_t tokens, std::int64_t start) const {
  const std::int64_t n = key.blocks(tokens, block_tokens_);
  std::int64_t j = start;
  while (j < n && index_.count(key.block(j, block_tokens_)) > 0) ++j;
  return j - start;
}

void PrefixCache::touch_run(const workloads::PrefixKey& key, std::int64_t start, std::int64_t count,
                            std::int64_t capacity_blocks) {
  for (std::int64_t j = start + count - 1; j >= start; --j) touch(key.block(j, block_tokens_));
  fit(capacity_blocks);
}

void PrefixCache::unlink(std::uint32_t n) {
  Node& x = nodes_[n];
  (x.prev == kNone ? head_ : nodes_[x.prev].next) = x.next;
  (x.next == kNone ? tail_ : nodes_[x.next].prev) = x.prev;
  x.prev = x.next = kNone;
}

void PrefixCache::push_front(std::uint32_t n) {
  nodes_[n].next = head_;
  nodes_[n].prev = kNone;
  if (head_ != kNone) nodes_[head_].prev = n;
  head_ = n;
  if (tail_ == kNone) tail_ = n;
}

void PrefixCache::touch(std::uint64_t name) {
  const auto it = index_.find(name);
  if (it != index_.end()) {
    if (it->second != head_) {
      unlink(it->second);
      push_front(it->second);
    }
    return;
  }
  std::uint32_t n;
  if (!free_.empty()) {
    n = free_.back();
    free_.pop_back();
  } else {
    n = static_cast<std::uint32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[n].name = name;
  index_.emplace(name, n);
  push_front(n);
  ++inserted_;
}

}  // namespace moesim::sim
