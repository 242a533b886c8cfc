#include "sim/scheduler.h"

#include <algorithm>
#include <map>
#include <string>

#include "sim/check.h"

namespace moesim::sim {

Scheduler::Scheduler(const PoolConfig& pool, std::int64_t kv_capacity_tokens_per_rank,
                     const std::vector<workloads::Request>& requests)
    : pool_(pool), kv_capacity_(kv_capacity_tokens_per_rank), requests_(requests) {
  records_.resize(requests.size());
  live_.resize(requests.size());
  ranks_.resize(static_cast<std::size_t>(pool.ranks));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& q = requests[i];
    auto& r = records_[i];
    r.id = q.id;
    r.arrival_ns = q.arrival_ns;
    r.input_tokens = q.input_tokens;
    r.output_tokens = q.output_tokens;
  }
}

void Scheduler::on_arrival(std::size_t index, Time /*now*/) {
  auto& rec = records_[index];
  const std::int64_t need = rec.input_tokens + rec.output_tokens;
  if (need > kv_capacity_) {
    rec.rejected = "needs " + std::to_string(need) + " KV tokens, a rank holds " + std::to_string(kv_capacity_);
    return;
  }
  std::size_t best = 0;
  std::size_t best_load = SIZE_MAX;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const std::size_t load = ranks_[r].waiting.size() + ranks_[r].running.size();
    if (load < best_load) {
      best = r;
      best_load = load;
    }
  }
  rec.rank = static_cast<int>(best);
  ranks_[best].waiting.push_back(index);
  ++outstanding_;
}

bool Scheduler::has_work() const { return outstanding_ > 0; }

void Scheduler::fill_rank(RankState& rank, RankBatch& batch, StepRecord& record) {
  std::int64_t budget = pool_.batch.token_budget_per_rank;
  // Decode tokens first: one per request whose prompt is done.
  for (std::size_t idx : rank.running) {
    auto& l = live_[idx];
    l.chunk = 0;
    l.decoding = false;
    if (l.prefilled < records_[idx].input_tokens || budget == 0) continue;
    l.decoding = true;
    --budget;
    batch.decode_kv_lengths.push_back(records_[idx].input_tokens + l.generated);
    ++batch.sampled_tokens;
    ++record.decode_tokens;
  }
  auto schedule_chunk = [&](std::size_t idx) {
    auto& l = live_[idx];
    const std::int64_t left = records_[idx].input_tokens - l.prefilled;
    l.chunk = std::min(left, budget);
    if (l.chunk == 0) return;
    budget -= l.chunk;
    batch.prefill_chunks.push_back({l.prefilled, l.chunk});
    if (l.chunk == left) ++batch.sampled_tokens;
    record.prefill_tokens += l.chunk;
  };
  // Then continue prompts already being prefilled, oldest first.
  for (std::size_t idx : rank.running)
    if (!live_[idx].decoding && live_[idx].prefilled < records_[idx].input_tokens && budget > 0) schedule_chunk(idx);
  // Then admit new requests, first come first served.
  while (!rank.waiting.empty() && budget > 0 &&
         static_cast<int>(rank.running.size()) < pool_.batch.max_running_per_rank) {
    const std::size_t idx = rank.waiting.front();
    const std::int64_t need = records_[idx].input_tokens + records_[idx].output_tokens;
    if (rank.kv_reserved + need > kv_capacity_) break;
    rank.waiting.pop_front();
    rank.kv_reserved += need;
    rank.running.push_back(idx);
    live_[idx] = Live{};
    schedule_chunk(idx);
  }
}

std::int64_t Scheduler::form_batches(std::vector<RankBatch>& batches, StepRecord& record) {
  batches.resize(ranks_.size());
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    batches[r] = RankBatch{};
    fill_rank(ranks_[r], batches[r], record);
    record.running += static_cast<std::int64_t>(ranks_[r].running.size());
  }
  return record.decode_tokens + record.prefill_tokens;
}

void Scheduler::complete_step(Time end, std::vector<std::pair<std::int64_t, std::int64_t>>& itl_samples) {
  const std::int64_t now = end.count_ns();
  std::map<std::int64_t, std::int64_t> gaps;  // ITL of this step's decode tokens, by gap
  for (auto& rank : ranks_) {
    for (std::size_t idx : rank.running) {
      auto& l = live_[idx];
      auto& rec = records_[idx];
      if (l.decoding) {
        MOESIM_CHECK(now >= l.last_token_ns, "token emitted before the previous one");
        ++gaps[now - l.last_token_ns];
        l.last_token_ns = now;
        ++l.generated;
      } else if (l.chunk > 0) {
        l.prefilled += l.chunk;
        if (l.prefilled == rec.input_tokens) {  // the last chunk samples the first token
          l.generated = 1;
          l.last_token_ns = now;
          rec.first_token_ns = now;
        }
      }
      l.chunk = 0;
      l.decoding = false;
      if (l.generated == rec.output_tokens) rec.finish_ns = now;
    }
    auto done = std::remove_if(rank.running.begin(), rank.running.end(), [&](std::size_t idx) {
      if (!records_[idx].finished()) return false;
      rank.kv_reserved -= records_[idx].input_tokens + records_[idx].output_tokens;
      --outstanding_;
      return true;
    });
    rank.running.erase(done, rank.running.end());
    MOESIM_CHECK(rank.kv_reserved >= 0, "KV reservation went negative");
  }
  for (const auto& g : gaps) itl_samples.push_back(g);
}

}  // namespace moesim::sim
