// Scheduler: continuous batching on one instance, per attention-DP rank (docs/design.md §4). An
// attention-DP rank is one rank, or one attention TP group whose ranks share its requests; with
// pipeline stages it spans every stage.
//
// A request queued on the instance goes to the rank the request router chose (sim/request_router.h)
// or else to the rank with the fewest outstanding requests (lowest index on a tie). With prefix
// caches (enable_prefix_caches), each rank keeps one (sim/prefix_cache.h): a queued request's
// leading cached tokens need no prefill, and a request's blocks are cached when it leaves. Each step a rank fills its
// token budget with one decode token per running request, then the next chunks of prompts being prefilled (chunked
// prefill), then admits waiting requests first-come-first-served while it runs fewer than max_running requests and its
// paged KV cache has blocks for the first chunk. KV grows a block at a time; when a decode token finds no free block,
// the most recently admitted request is preempted (recompute: its blocks are freed and it goes back to the head of the
// queue to prefill its prompt and the tokens it generated again). A request whose prompt and output can never fit one
// rank's cache is rejected with the reason.
//
// Speculative decoding (sim/speculative.h): a decoding request feeds 1 + k positions (its newest
// token and k drafts), which its KV reserves and the token budget pays for; when the step ends
// it emits 1 + the accepted drafts (drawn per request from the instance's acceptance stream),
// at most what is left of its output, and keeps the KV of what it emitted. ITL follows SGLang's
// bench_serving: a step emitting m tokens after a gap g gives m samples of g / m (TPOT is
// (e2e − TTFT) / (output − 1) either way, as vLLM and SGLang report it).
//
// Roles: a colocated instance prefills and decodes; a prefill instance hands a request over as
// soon as its prompt is cached (its last chunk samples the first token); a decode instance
// receives requests whose prompt KV has been transferred and only decodes.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "sim/deployment_config.h"
#include "sim/kv_blocks.h"
#include "sim/metrics.h"
#include "sim/prefix_cache.h"
#include "sim/step_batch.h"
#include "workloads/arrivals.h"
#include "workloads/rng.h"

namespace moesim::sim {

using ItlSamples = std::vector<std::pair<std::int64_t, std::int64_t>>;  // (inter-token gap ns, tokens)

class Scheduler {
 public:
  // `acceptance` draws the accepted drafts of speculative decoding (unused without it).
  Scheduler(const PoolConfig& pool, std::int64_t kv_capacity_tokens_per_rank,
            const std::vector<workloads::Request>& requests, std::vector<RequestRecord>& records,
            workloads::Rng acceptance = workloads::Rng(0));

  // Every request also holds `tokens` of its rank's pool while it is running: the fixed state of
  // a model's linear-attention layers (models::MemoryPlan::state_tokens_per_request). Default 0.
  void reserve_state_tokens(std::int64_t tokens) { state_tokens_ = tokens; }

  // One prefix cache per rank, matching blocks of `block_tokens` (entry pools only: a decode
  // instance receives its prompts' KV and prefills nothing).
  void enable_prefix_caches(int block_tokens);
  bool has_prefix_caches() const { return caching_; }

  // KV tiers below the prefix caches (sim/prefix_cache.h): each rank's host memory of
  // `host_blocks` blocks (0: none), then the pool's remote store `remote` (shared; null: none).
  // A hit there is loaded back at the given rates (bytes/s per rank), one load at a time per rank
  // and tier, and the request is admitted once its load is done.
  void enable_kv_tiers(std::int64_t host_blocks, PrefixCache* remote, double bytes_per_token, double host_bytes_per_s,
                       double remote_bytes_per_s);

  // Queues request `index` (whose record is already filled in) on `rank` (-1: the least-loaded
  // one) at `now` and returns the rank, or -1 if the request can never fit (its record then says
  // why).
  int enqueue(std::size_t index, int rank = -1, Time now = Time{});
  int attention_ranks() const { return static_cast<int>(ranks_.size()); }
  // What a request router weighs (sim/request_router.h), for request `index` on `rank`: the prompt
  // tokens its prefix cache holds, and the KV tokens the rank's requests hold or will need (in use,
  // plus the prompts still waiting).
  std::int64_t cached_prefix_tokens(std::size_t index, int rank) const;
  std::int64_t load_tokens(int rank) const;
  std::int64_t input_tokens(std::size_t index) const { return requests_[index].input_tokens; }
  PrefixCacheStats prefix_cache_stats() const;  // summed over the ranks
  // End-of-run conservation of the tiers (sim/invariants.h): each rank's host memory received what
  // its HBM cache evicted and holds or evicted all of it. Throws InvariantError.
  void check_kv_tiers() const;
  // Blocks this instance's ranks evicted into the remote store (their lowest tier above it).
  std::int64_t sent_to_remote() const;
  bool has_work() const { return outstanding_ > 0; }
  std::int64_t outstanding() const { return outstanding_; }
  // Fills one RankBatch per rank for the next step; returns the tokens scheduled.
  std::int64_t form_batches(std::vector<RankBatch>& batches, StepRecord& record);
  // Applies the step that ended at `end`. Finished requests are appended to `finished`; on a
  // prefill instance, requests whose prompt is now cached are appended to `handed_over`.
  void complete_step(Time end, ItlSamples& itl, std::vector<std::size_t>& finished,
                     std::vector<std::size_t>& handed_over);

  std::int64_t kv_blocks_in_use(int rank) const { return ranks_[static_cast<std::size_t>(rank)].kv.used_blocks(); }
  double kv_peak_utilisation() const;
  // The most KV tokens (whole blocks) any rank held at once.
  std::int64_t kv_peak_tokens() const;
  // End-of-run invariants (sim/invariants.h): nothing left queued or running and every rank's KV
  // blocks freed. Throws InvariantError.
  void check_drained() const;
  std::int64_t preemptions() const { return preemptions_; }
  // Speculative decoding: drafts verified and accepted so far.
  std::int64_t drafts_proposed() const { return drafts_proposed_; }
  std::int64_t drafts_accepted() const { return drafts_accepted_; }

 private:
  // A request's state from enqueue() on. A waiting request's is kept in live_[index]; a running
  // one's moves into its rank's `running` array, so a step's passes over the running requests
  // read one contiguous array instead of one cache line per request.
  struct Live {
    std::size_t index = 0;       // the request's
    std::int64_t cached = 0;     // tokens whose K/V is in the cache
    std::int64_t target = 0;     // tokens to prefill before decoding
    std::int64_t generated = 0;  // output tokens emitted so far
    std::int64_t chunk = 0;      // prompt tokens in the current step
    std::int64_t blocks = 0;     // KV blocks held
    std::int64_t last_token_ns = 0;
    std::int64_t input_tokens = 0, output_tokens = 0;  // the request's (its record's), kept here
                                                       // so a step's passes read one array
    bool decoding = false;                             // decodes in the current step
    std::int64_t ready_ns = 0;                         // admitted no earlier (a KV-tier load)
  };
  struct RankState {
    explicit RankState(std::int64_t capacity, int block) : kv(capacity, block) {}
    std::deque<std::size_t> waiting;
    std::vector<Live> running;  // admission order
    KvBlocks kv;
    std::optional<PrefixCache> cache;
    std::optional<PrefixCache> host;  // KV tier: host memory
    Time host_free{}, remote_free{};  // when the rank's loads queued so far are done
    PrefixCacheStats lookups;         // lookups, prompt and hit tokens
    std::int64_t waiting_tokens = 0;  // prompt tokens of the waiting requests
  };
  // Cache blocks the rank's free KV memory holds.
  std::int64_t cache_room(const RankState& rank) const;
  // The prefix-cache hit, in tokens, of a prompt of `input` tokens with `blocks` leading blocks cached.
  std::int64_t hit_tokens(std::int64_t blocks, std::int64_t input, int block_tokens) const;
  void cache_leaving(RankState& rank, std::size_t idx, std::int64_t tokens);
  void look_up(RankState& rank, std::size_t index, Live& l, Time now);
  bool decodes() const { return pool_.role != PoolRole::kPrefill; }
  void fill_rank(RankState& rank, RankBatch& batch, StepRecord& record);
  bool preempt_one(RankState& rank, std::size_t keep);
  void retire(RankState& rank, Live& l);

  PoolConfig pool_;
  std::int64_t kv_capacity_tokens_;
  std::int64_t state_tokens_ = 0;  // reserve_state_tokens
  // Pool tokens a request holds when `tokens` of its positions are cached.
  std::int64_t held_tokens(std::int64_t tokens) const { return tokens + state_tokens_; }
  const std::vector<workloads::Request>& requests_;
  std::vector<RequestRecord>& records_;
  std::vector<Live> live_;  // [request] the state of a request not running (Live)
  std::vector<RankState> ranks_;
  ItlSamples gaps_;  // complete_step scratch: this step's (gap, tokens), sorted by gap
  std::int64_t outstanding_ = 0;
  std::int64_t preemptions_ = 0;
  bool caching_ = false;
  bool formed_ = false;            // a batch was formed and its step not completed yet
  PrefixCache* remote_ = nullptr;  // enable_kv_tiers
  double bytes_per_token_ = 0, host_rate_ = 0, remote_rate_ = 0;
  int queries_ = 1;  // positions a decoding request feeds per step (1 + draft tokens)
  workloads::Rng acceptance_;
  std::int64_t drafts_proposed_ = 0, drafts_accepted_ = 0;
};

}  // namespace moesim::sim
