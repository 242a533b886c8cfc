#include "sim/scheduler.h"

#include <algorithm>
#include <string>

#include "sim/check.h"
#include "sim/invariants.h"
#include "sim/speculative.h"

namespace moesim::sim {

Scheduler::Scheduler(const PoolConfig& pool, std::int64_t kv_capacity_tokens_per_rank,
                     const std::vector<workloads::Request>& requests, std::vector<RequestRecord>& records,
                     workloads::Rng acceptance)
    : pool_(pool),
      kv_capacity_tokens_(kv_capacity_tokens_per_rank),
      requests_(requests),
      records_(records),
      queries_(pool.speculative.enabled() ? 1 + pool.speculative.tokens : 1),
      acceptance_(acceptance) {
  live_.resize(requests.size());
  for (int r = 0; r < pool.attention_dp; ++r)
    ranks_.emplace_back(kv_capacity_tokens_per_rank, pool.batch.kv_block_tokens);
}

void Scheduler::enable_prefix_caches(int block_tokens) {
  caching_ = true;
  for (auto& r : ranks_) r.cache.emplace(block_tokens);
}

std::int64_t Scheduler::cache_room(const RankState& rank) const {
  const std::int64_t free_tokens = (rank.kv.capacity_blocks() - rank.kv.used_blocks()) * rank.kv.block_tokens();
  return free_tokens / rank.cache->block_tokens();
}

std::int64_t Scheduler::hit_tokens(std::int64_t blocks, std::int64_t input, int block_tokens) const {
  // At least the prompt's last token is computed: it samples the first output token.
  return std::clamp<std::int64_t>(blocks * block_tokens, 0, std::max<std::int64_t>(0, input - 1));
}

std::int64_t Scheduler::cached_prefix_tokens(std::size_t index, int rank) const {
  const auto& r = ranks_[static_cast<std::size_t>(rank)];
  const auto& q = requests_[index];
  if (!r.cache) return q.cached_tokens();
  // Every tier's blocks count: a router that sees offloaded blocks (as LMCache's and Dynamo's KV
  // block manager report them) prefers the rank that can load a conversation over one that
  // would prefill it.
  std::int64_t blocks = r.cache->peek(q.prefix, q.input_tokens);
  if (r.host) blocks += r.host->run_from(q.prefix, q.input_tokens, blocks);
  if (remote_) blocks += remote_->run_from(q.prefix, q.input_tokens, blocks);
  return hit_tokens(blocks, q.input_tokens, r.cache->block_tokens());
}

std::int64_t Scheduler::load_tokens(int rank) const {
  const auto& r = ranks_[static_cast<std::size_t>(rank)];
  return r.kv.used_blocks() * r.kv.block_tokens() + r.waiting_tokens;
}

PrefixCacheStats Scheduler::prefix_cache_stats() const {
  PrefixCacheStats total;
  for (const auto& r : ranks_) {
    PrefixCacheStats s = r.lookups;
    if (r.cache) {
      s.inserted_blocks = r.cache->inserted();
      s.evicted_blocks = r.cache->evicted();
      s.resident_blocks = r.cache->size();
      if (r.host || remote_) s.offloaded_blocks = r.cache->evicted();
    }
    if (r.host) s.host_resident_blocks = r.host->size();
    total += s;
  }
  return total;
}

void Scheduler::check_kv_tiers() const {
  for (const auto& r : ranks_) {
    if (!r.host) continue;
    MOESIM_CHECK(r.host->received() == r.cache->evicted(), "KV tiers: host memory received != HBM cache evicted");
    MOESIM_CHECK(r.host->inserted() == r.host->size() + r.host->evicted(),
                 "KV tiers: host blocks inserted != resident + evicted");
  }
}

std::int64_t Scheduler::sent_to_remote() const {
  std::int64_t n = 0;
  if (remote_)
    for (const auto& r : ranks_) n += r.host ? r.host->evicted() : r.cache->evicted();
  return n;
}

void Scheduler::cache_leaving(RankState& rank, std::size_t idx, std::int64_t tokens) {
  if (rank.cache) rank.cache->insert(requests_[idx].prefix, tokens, cache_room(rank));
}

void Scheduler::enable_kv_tiers(std::int64_t host_blocks, PrefixCache* remote, double bytes_per_token,
                                double host_bytes_per_s, double remote_bytes_per_s) {
  remote_ = remote;
  bytes_per_token_ = bytes_per_token;
  host_rate_ = host_bytes_per_s;
  remote_rate_ = remote_bytes_per_s;
  for (auto& r : ranks_) {
    if (host_blocks > 0) {
      r.host.emplace(r.cache->block_tokens());
      r.host->set_capacity(host_blocks);
      r.cache->set_lower(&*r.host);
      r.host->set_lower(remote);
    } else {
      r.cache->set_lower(remote);
    }
  }
}

// The hit of request `index` on `rank`: the leading blocks in its HBM cache, continued into its
// host memory and then the remote store; blocks from a lower tier are loaded back, one load at a
// time per rank and tier, and the request waits for them (Live::ready_ns).
void Scheduler::look_up(RankState& rank, std::size_t index, Live& l, Time now) {
  const auto& q = requests_[index];
  PrefixCache& hbm = *rank.cache;
  const int block = hbm.block_tokens();
  const std::int64_t in_hbm = hbm.match(q.prefix, q.input_tokens);
  const std::int64_t in_host = rank.host ? rank.host->run_from(q.prefix, q.input_tokens, in_hbm) : 0;
  const std::int64_t in_remote = remote_ ? remote_->run_from(q.prefix, q.input_tokens, in_hbm + in_host) : 0;
  l.cached = hit_tokens(in_hbm + in_host + in_remote, q.input_tokens, block);
  // The cap (at least one token computed) comes off the deepest tier first.
  const std::int64_t hbm_tokens = std::min(in_hbm * block, l.cached);
  const std::int64_t host_tokens = std::min(in_host * block, l.cached - hbm_tokens);
  const std::int64_t remote_tokens = l.cached - hbm_tokens - host_tokens;
  auto& st = rank.lookups;
  st.lookups += 1;
  st.prompt_tokens += q.input_tokens;
  st.hit_tokens += l.cached;
  if (host_tokens + remote_tokens <= 0) return;
  Time ready = now;
  const auto load = [&](std::int64_t tokens, double rate, Time& link_free, double& bytes) {
    if (tokens <= 0) return;
    MOESIM_CHECK(rate > 0, "KV tiers: a load at no rate (host_bandwidth is required; every profile has a NIC)");
    const double b = static_cast<double>(tokens) * bytes_per_token_;
    const Time start = std::max(now, link_free);
    link_free = start + Duration::from_ns_rounded(b / rate * 1e9);
    ready = std::max(ready, link_free);
    bytes += b;
  };
  load(host_tokens, host_rate_, rank.host_free, st.host_loaded_bytes);
  load(remote_tokens, remote_rate_, rank.remote_free, st.remote_loaded_bytes);
  st.host_hit_tokens += host_tokens;
  st.remote_hit_tokens += remote_tokens;
  st.loads += 1;
  st.load_wait_s += (ready - now).seconds();
  l.ready_ns = ready.count_ns();
  records_[index].kv_load_ns = (ready - now).count_ns();
  // The loaded blocks are used now in the tiers they came from, and cached in HBM again.
  if (in_host > 0) rank.host->touch_run(q.prefix, in_hbm, in_host, INT64_MAX);
  if (in_remote > 0) remote_->touch_run(q.prefix, in_hbm + in_host, in_remote, INT64_MAX);
  hbm.touch_run(q.prefix, in_hbm, in_host + in_remote, cache_room(rank));
}

int Scheduler::enqueue(std::size_t index, int rank, Time now) {
  auto& rec = records_[index];
  // A prefill instance holds only the prompt; the others eventually hold prompt and output.
  const std::int64_t need =
      rec.input_tokens + (pool_.role == PoolRole::kPrefill ? 0 : rec.output_tokens + queries_ - 1);
  if (ranks_.front().kv.blocks_for(held_tokens(need)) > ranks_.front().kv.capacity_blocks()) {
    rec.rejected =
        "needs " + std::to_string(need) + " KV tokens" +
        (state_tokens_ > 0 ? " and " + std::to_string(state_tokens_) + " tokens' worth of linear-attention state"
                           : "") +
        ", a rank holds " + std::to_string(kv_capacity_tokens_);
    return -1;
  }
  std::size_t best = 0, best_load = SIZE_MAX;
  if (rank >= 0) {
    best = static_cast<std::size_t>(rank);
  } else {
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      const std::size_t load = ranks_[r].waiting.size() + ranks_[r].running.size();
      if (load < best_load) {
        best = r;
        best_load = load;
      }
    }
  }
  RankState& chosen = ranks_[best];
  Live l;
  l.index = index;
  l.target = rec.input_tokens;
  l.input_tokens = rec.input_tokens;
  l.output_tokens = rec.output_tokens;
  if (pool_.role == PoolRole::kDecode) {
    l.generated = 1;  // the prefill instance sampled the first token
    l.last_token_ns = rec.first_token_ns;
  } else if (chosen.cache) {
    look_up(chosen, index, l, now);
  } else {
    l.cached = requests_[index].cached_tokens();  // prefix-cache hit: no compute for these
  }
  if (pool_.role != PoolRole::kDecode) rec.cached_tokens = l.cached;
  live_[index] = l;
  chosen.waiting.push_back(index);
  chosen.waiting_tokens += rec.input_tokens;
  ++outstanding_;
  return static_cast<int>(best);
}

bool Scheduler::preempt_one(RankState& rank, std::size_t position) {
  if (rank.running.size() <= position + 1) return false;  // only requests not yet scheduled this step
  auto& l = live_[rank.running.back().index];
  l = rank.running.back();
  rank.running.pop_back();
  const std::size_t victim = l.index;
  rank.kv.release(l.blocks);
  l.cached = 0;
  l.target = l.input_tokens + std::max<std::int64_t>(l.generated - 1, 0);  // recompute
  l.chunk = 0;
  l.decoding = false;
  rank.waiting.push_front(victim);
  rank.waiting_tokens += l.input_tokens;
  ++records_[victim].preemptions;
  ++preemptions_;
  return true;
}

void Scheduler::fill_rank(RankState& rank, RankBatch& batch, StepRecord& record) {
  std::int64_t budget = pool_.batch.token_budget_per_rank;
  // complete_step() leaves every running request with no chunk and not decoding; only a batch
  // formed again without it (the last one was dropped) has flags to clear.
  if (formed_)
    for (Live& l : rank.running) {
      l.chunk = 0;
      l.decoding = false;
    }
  const bool drafts = pool_.speculative.enabled();
  batch.decode_queries = queries_;
  auto decode = [&](Live& l, std::size_t position) {
    // Cached + the token fed now + its draft tokens.
    const std::int64_t kv_len = l.input_tokens + l.generated + queries_ - 1;
    while (!rank.kv.grow(l.blocks, held_tokens(kv_len)))
      if (!preempt_one(rank, position)) return;  // no room even after preempting later requests
    l.decoding = true;
    budget -= queries_;
    batch.decode_kv_lengths.push_back(kv_len);  // its tokens are counted once the rank is filled
    if (drafts) batch.draft_kv_lengths.push_back(kv_len);
  };
  auto prefill = [&](Live& l) {
    const std::int64_t chunk = std::min(l.target - l.cached, budget);
    if (chunk <= 0 || !rank.kv.grow(l.blocks, held_tokens(l.cached + chunk))) return false;
    l.chunk = chunk;
    budget -= chunk;
    batch.prefill_chunks.push_back({l.cached, chunk});
    if (l.cached + chunk == l.target && l.generated == 0) {
      ++batch.sampled_tokens;
      if (drafts && decodes()) batch.draft_kv_lengths.push_back(l.target);  // drafts its first decode step
    }
    record.prefill_tokens += chunk;
    return true;
  };
  // Decode tokens first, one per request whose prompt is cached.
  if (decodes())
    for (std::size_t i = 0; i < rank.running.size() && budget >= queries_; ++i) {
      Live& l = rank.running[i];
      if (l.cached >= l.target) decode(l, i);
    }
  // Then the next chunks of prompts being prefilled, oldest first.
  for (Live& l : rank.running)
    if (budget > 0 && !l.decoding && l.cached < l.target) prefill(l);
  // Then admit waiting requests, first come first served.
  // (A request whose prefix is still loading from a lower KV tier waits; the ones behind it may go.)
  while (!rank.waiting.empty() && budget > 0 &&
         static_cast<int>(rank.running.size()) < pool_.batch.max_running_per_rank) {
    auto next = rank.waiting.begin();
    while (next != rank.waiting.end() && live_[*next].ready_ns > record.start_ns) ++next;
    if (next == rank.waiting.end()) break;
    const std::size_t idx = *next;
    Live& w = live_[idx];
    const bool transferred = pool_.role == PoolRole::kDecode && w.generated == 1 && w.cached == 0;
    // Room for what the request holds once admitted: a transferred prompt's whole KV, or the
    // prefix-cache hit plus the first chunk.
    const std::int64_t first = transferred ? w.target : w.cached + std::min(w.target - w.cached, budget);
    if (!rank.kv.grow(w.blocks, held_tokens(first))) break;
    if (transferred) w.cached = w.target;
    rank.waiting.erase(next);
    rank.waiting_tokens -= w.input_tokens;
    Live& l = rank.running.emplace_back(w);
    if (l.cached >= l.target) {
      if (decodes() && budget >= queries_) decode(l, rank.running.size() - 1);
    } else if (!prefill(l)) {
      break;
    }
  }
  // The decoding requests' tokens; verification needs logits at every fed position.
  const auto decoding = static_cast<std::int64_t>(batch.decode_kv_lengths.size()) * queries_;
  batch.sampled_tokens += decoding;
  record.decode_tokens += decoding;
}

std::int64_t Scheduler::form_batches(std::vector<RankBatch>& batches, StepRecord& record) {
  batches.resize(ranks_.size());
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    batches[r].clear();
    fill_rank(ranks_[r], batches[r], record);
    if (ranks_[r].cache) ranks_[r].cache->fit(cache_room(ranks_[r]));  // running requests grew
    record.running += static_cast<std::int64_t>(ranks_[r].running.size());
  }
  formed_ = true;
  return record.decode_tokens + record.prefill_tokens;
}

void Scheduler::retire(RankState& rank, Live& l) {
  rank.kv.release(l.blocks);
  --outstanding_;
}

void Scheduler::complete_step(Time end, ItlSamples& itl, std::vector<std::size_t>& finished,
                              std::vector<std::size_t>& handed_over) {
  const std::int64_t now = end.count_ns();
  formed_ = false;
  // ITL of this step's decode tokens, by gap: sorted by gap, nearly all of them one value.
  gaps_.clear();
  std::size_t last = 0;
  auto count_gap = [&](std::int64_t gap, std::int64_t tokens) {
    if (last < gaps_.size() && gaps_[last].first == gap) {
      gaps_[last].second += tokens;
      return;
    }
    const auto it = std::lower_bound(gaps_.begin(), gaps_.end(), std::pair<std::int64_t, std::int64_t>{gap, 0},
                                     [](const auto& a, const auto& b) { return a.first < b.first; });
    last = static_cast<std::size_t>(it - gaps_.begin());
    if (it != gaps_.end() && it->first == gap)
      it->second += tokens;
    else
      gaps_.insert(it, {gap, tokens});
  };
  for (auto& rank : ranks_) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < rank.running.size(); ++i) {
      Live& l = rank.running[i];
      const std::size_t idx = l.index;
      bool leaves = false;
      if (l.decoding) {
        if (l.last_token_ns > now) check_clock(Time::from_ns(l.last_token_ns), end, "a request's tokens");
        std::int64_t emitted = 1;
        if (queries_ > 1) {
          const int accepted = draw_accepted(pool_.speculative, acceptance_);
          drafts_proposed_ += queries_ - 1;
          drafts_accepted_ += accepted;
          emitted = std::min<std::int64_t>(1 + accepted, l.output_tokens - l.generated);
        }
        const std::int64_t gap = now - l.last_token_ns;
        count_gap(emitted == 1 ? gap : (gap + emitted / 2) / emitted, emitted);
        l.last_token_ns = now;
        l.generated += emitted;
      } else if (l.chunk > 0) {
        l.cached += l.chunk;
        if (l.cached == l.target && l.generated == 0) {  // the last chunk samples the first token
          l.generated = 1;
          l.last_token_ns = now;
          if (pool_.role == PoolRole::kPrefill) {
            records_[idx].prefill_done_ns = now;
            handed_over.push_back(idx);
            leaves = true;
          } else {
            records_[idx].first_token_ns = now;
          }
        }
      }
      l.chunk = 0;
      l.decoding = false;
      if (!leaves && l.generated == l.output_tokens && l.cached >= l.target) {
        records_[idx].finish_ns = now;
        finished.push_back(idx);
        leaves = true;
      }
      if (leaves) {
        retire(rank, l);
        // Its blocks return to the pool with their content cached: the prompt a prefill instance
        // handed over, or the whole sequence but the last token (whose K/V was never computed).
        cache_leaving(rank, idx,
                      pool_.role == PoolRole::kPrefill ? l.input_tokens : l.input_tokens + l.output_tokens - 1);
      } else {
        if (kept != i) rank.running[kept] = l;
        ++kept;
      }
    }
    rank.running.resize(kept);
  }
  itl.insert(itl.end(), gaps_.begin(), gaps_.end());
}

std::int64_t Scheduler::kv_peak_tokens() const {
  std::int64_t peak = 0;
  for (const auto& r : ranks_) peak = std::max(peak, r.kv.peak_blocks() * r.kv.block_tokens());
  return peak;
}

void Scheduler::check_drained() const {
  MOESIM_CHECK(outstanding_ == 0, std::to_string(outstanding_) + " requests still outstanding at the end");
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const auto& rank = ranks_[r];
    MOESIM_CHECK(rank.waiting.empty() && rank.running.empty(),
                 "rank " + std::to_string(r) + ": requests still queued or running at the end");
    check_kv_drained(static_cast<int>(r), rank.kv.allocated_blocks(), rank.kv.freed_blocks(), rank.kv.used_blocks());
  }
}

double Scheduler::kv_peak_utilisation() const {
  double u = 0;
  for (const auto& r : ranks_)
    if (r.kv.capacity_blocks() > 0)
      u = std::max(u, static_cast<double>(r.kv.peak_blocks()) / static_cast<double>(r.kv.capacity_blocks()));
  return u;
}

}  // namespace moesim::sim
