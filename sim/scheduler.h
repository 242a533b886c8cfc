// Scheduler: continuous batching per attention-DP rank (DESIGN.md §4).
//
// An arriving request goes to the rank with the fewest outstanding requests (lowest index on a
// tie). Each step, a rank fills its token budget with one decode token per running request,
// then the next chunks of prompts being prefilled (chunked prefill), then admits waiting
// requests first-come-first-served while it has fewer than max_running requests and KV room.
// Admission reserves KV for the whole request (prompt + output), so a running request never
// needs preemption; a request that can never fit on a rank is rejected with the reason.
// The last prefill chunk of a prompt samples the request's first token.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/deployment_config.h"
#include "sim/metrics.h"
#include "sim/step_model.h"
#include "workloads/arrivals.h"

namespace moesim::sim {

class Scheduler {
 public:
  Scheduler(const PoolConfig& pool, std::int64_t kv_capacity_tokens_per_rank,
            const std::vector<workloads::Request>& requests);

  void on_arrival(std::size_t index, Time now);
  bool has_work() const;
  // Fills one RankBatch per rank for the next step; returns the tokens scheduled.
  std::int64_t form_batches(std::vector<RankBatch>& batches, StepRecord& record);
  // Applies the step that just ended at `end`: advances prompts, emits tokens, retires requests.
  void complete_step(Time end, std::vector<std::pair<std::int64_t, std::int64_t>>& itl_samples);

  const std::vector<RequestRecord>& records() const { return records_; }
  std::int64_t kv_in_use(int rank) const { return ranks_[static_cast<std::size_t>(rank)].kv_reserved; }
  std::int64_t outstanding() const { return outstanding_; }

 private:
  struct Live {
    std::int64_t prefilled = 0;
    std::int64_t generated = 0;
    std::int64_t chunk = 0;  // prompt tokens in the current step
    bool decoding = false;   // decodes in the current step
    std::int64_t last_token_ns = 0;
  };
  struct RankState {
    std::deque<std::size_t> waiting;
    std::vector<std::size_t> running;  // admission order
    std::int64_t kv_reserved = 0;
  };
  void fill_rank(RankState& rank, RankBatch& batch, StepRecord& record);

  PoolConfig pool_;
  std::int64_t kv_capacity_;
  const std::vector<workloads::Request>& requests_;
  std::vector<RequestRecord> records_;
  std::vector<Live> live_;
  std::vector<RankState> ranks_;
  std::int64_t outstanding_ = 0;
};

}  // namespace moesim::sim
