// PrefixCache: one attention-DP rank's prefix cache (docs/serving.md "Prefix caching"), as
// SGLang's radix cache and vLLM's automatic prefix caching keep one per engine.
//
// It holds block names (workloads::PrefixKey): a request looks up the longest run of its leading
// blocks present, and those tokens need no prefill. A request's blocks are inserted when it leaves
// the rank (finished, or handed to a decode instance): then its KV blocks return to the pool and
// their content stays cached in them, so the cache lives in the KV memory running requests leave
// free. Whenever that shrinks the cache gives back blocks, least recently used first; a chain's
// later blocks are always older than its earlier ones (touched last to first), so a prefix is
// evicted from its end and what remains is still a prefix. Conservative against the engines: a
// running request's prefix becomes matchable only when it leaves, and a request holds its own
// copy of the blocks it matched (sim/kv_blocks.h), so a block can count twice while it runs.
//
// Tiers (docs/serving.md "KV cache tiers"): a cache may have a lower tier (host memory, then a
// remote store), a PrefixCache of fixed capacity; every block it evicts is received there, so
// blocks move down a tier instead of being lost. A lookup continues the HBM run of leading blocks
// into the tiers below (run_from); those blocks are loaded back and cached in HBM again.
//
// Conservation (checked at the end of every run and by tests): inserted = resident + evicted in
// every tier, and a tier received exactly what the tier above it evicted.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "workloads/arrivals.h"

namespace moesim::sim {

struct PrefixCacheStats {
  std::int64_t lookups = 0;        // requests routed to the rank
  std::int64_t prompt_tokens = 0;  // their prompt tokens ...
  std::int64_t hit_tokens = 0;     // ... and those found cached (no prefill compute)
  std::int64_t inserted_blocks = 0, evicted_blocks = 0, resident_blocks = 0;
  // KV tiers: prompt tokens found in host memory / the remote store (part of hit_tokens), blocks
  // evicted from HBM to a lower tier, bytes loaded back, loads, the time requests waited for them
  // (summed over requests), and the blocks resident below HBM.
  std::int64_t host_hit_tokens = 0, remote_hit_tokens = 0, offloaded_blocks = 0;
  double host_loaded_bytes = 0, remote_loaded_bytes = 0;
  std::int64_t loads = 0;
  double load_wait_s = 0;
  std::int64_t host_resident_blocks = 0, remote_resident_blocks = 0;
  double hit_rate() const {
    return prompt_tokens > 0 ? static_cast<double>(hit_tokens) / static_cast<double>(prompt_tokens) : 0.0;
  }
  PrefixCacheStats& operator+=(const PrefixCacheStats& o);
};

class PrefixCache {
 public:
  explicit PrefixCache(int block_tokens) : block_tokens_(block_tokens) {}

  int block_tokens() const { return block_tokens_; }
  // Leading blocks of `key`'s first `tokens` tokens that are cached (no change).
  std::int64_t peek(const workloads::PrefixKey& key, std::int64_t tokens) const;
  // The same, marking them used now (a request routed here reads them).
  std::int64_t match(const workloads::PrefixKey& key, std::int64_t tokens);
  // Caches the blocks of `key`'s first `tokens` tokens (most recent first), then fits.
  void insert(const workloads::PrefixKey& key, std::int64_t tokens, std::int64_t capacity_blocks);
  // Evicts least recently used blocks until at most `capacity_blocks` remain (to the lower tier).
  void fit(std::int64_t capacity_blocks);
  // How many of `key`'s blocks j = start, start + 1, ... are cached here (no change).
  std::int64_t run_from(const workloads::PrefixKey& key, std::int64_t tokens, std::int64_t start) const;
  // Marks blocks [start, start + count) used now, caching them if absent, then fits `capacity_blocks`.
  void touch_run(const workloads::PrefixKey& key, std::int64_t start, std::int64_t count, std::int64_t capacity_blocks);

  // A lower tier of fixed capacity: receives what this cache evicts.
  void set_lower(PrefixCache* lower) { lower_ = lower; }
  void set_capacity(std::int64_t blocks) { capacity_ = blocks; }  // a lower tier's fixed size
  std::int64_t received() const { return received_; }

  std::int64_t size() const { return static_cast<std::int64_t>(index_.size()); }
  std::int64_t inserted() const { return inserted_; }
  std::int64_t evicted() const { return evicted_; }

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  struct Node {
    std::uint64_t name = 0;
    std::uint32_t prev = kNone, next = kNone;  // towards the most / least recently used
  };
  void unlink(std::uint32_t n);
  void push_front(std::uint32_t n);
  void touch(std::uint64_t name);    // inserts or moves to the front
  void receive(std::uint64_t name);  // from the tier above

  int block_tokens_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> free_;
  std::uint32_t head_ = kNone, tail_ = kNone;
  std::int64_t inserted_ = 0, evicted_ = 0, received_ = 0;
  PrefixCache* lower_ = nullptr;
  std::int64_t capacity_ = 0;  // as a lower tier
};

}  // namespace moesim::sim
