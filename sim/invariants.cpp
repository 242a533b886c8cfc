#include "sim/invariants.h"

#include <string>

#include "sim/check.h"

namespace moesim::sim {

void check_clock(Time previous, Time next, const char* what) {
  MOESIM_CHECK(next >= previous, std::string(what) + ": the clock ran backwards from " +
                                     std::to_string(previous.count_ns()) + " ns to " + std::to_string(next.count_ns()) +
                                     " ns");
}

void check_layer_pairs(int moe_layer, std::int64_t dispatched, std::int64_t combined) {
  MOESIM_CHECK(dispatched == combined, "MoE layer " + std::to_string(moe_layer) + ": " + std::to_string(dispatched) +
                                           " token-expert pairs dispatched, " + std::to_string(combined) +
                                           " processed and combined");
}

void traffic_pairs_violated(int moe_layer, const char* what, int rank, std::int64_t expected, std::int64_t carried) {
  std::string who = what;
  if (rank >= 0) who += " rank " + std::to_string(rank);
  invariant_failed("expected == carried", __FILE__, __LINE__,
                   "MoE layer " + std::to_string(moe_layer) + ": " + who + ": " + std::to_string(expected) +
                       " token-expert pairs drawn, " + std::to_string(carried) + " in the all-to-all traffic");
}

void check_kv_drained(int rank, std::int64_t allocated, std::int64_t freed, std::int64_t in_use) {
  MOESIM_CHECK(allocated == freed && in_use == 0, "rank " + std::to_string(rank) + ": " + std::to_string(allocated) +
                                                      " KV blocks allocated, " + std::to_string(freed) + " freed, " +
                                                      std::to_string(in_use) + " still in use at the end");
}

void check_requests_accounted(std::span<const RequestRecord> records, bool partial) {
  for (const auto& r : records) {
    const std::string who = "request " + std::to_string(r.id);
    if (!r.rejected.empty()) {
      MOESIM_CHECK(!r.finished(), who + " was rejected (" + r.rejected + ") yet finished");
      continue;
    }
    MOESIM_CHECK(r.finished() || partial, who + " neither finished nor was rejected with a reason");
    if (!r.finished()) continue;
    MOESIM_CHECK(r.first_token_ns >= r.arrival_ns && r.finish_ns >= r.first_token_ns,
                 who + ": arrival " + std::to_string(r.arrival_ns) + " ns, first token " +
                     std::to_string(r.first_token_ns) + " ns, finish " + std::to_string(r.finish_ns) +
                     " ns are out of order");
  }
}

void check_rank_memory(const models::MemoryPlan& plan, std::int64_t peak_kv_tokens, const char* pool) {
  const double fixed = plan.weight_bytes + plan.activation_bytes + plan.comm_buffer_bytes + plan.runtime_reserve_bytes;
  const double used = fixed + static_cast<double>(peak_kv_tokens) * plan.kv_bytes_per_token;
  // One part in 10^9 absorbs the rounding of kv_bytes = capacity - fixed.
  MOESIM_CHECK(used <= plan.capacity_bytes * (1 + 1e-9),
               std::string(pool) + " pool: a rank used " + std::to_string(used) + " bytes (" +
                   std::to_string(peak_kv_tokens) + " KV tokens at peak), more than its " +
                   std::to_string(plan.capacity_bytes) + " bytes of memory");
}

}  // namespace moesim::sim
