// Invariants of a serving run (docs/robustness.md): conservation and accounting checks that are
// cheap enough to stay on in every build, tests included. Each throws sim::InvariantError
// (MOESIM_CHECK, sim/check.h) naming what broke; a violation means the simulator is wrong, not
// the input.
//
//   clock        simulated time never runs backwards (event queue, scheduler)
//   pairs        per MoE layer, the token-expert pairs dispatched (tokens × top_k) equal those
//                the experts processed and combined back
//   traffic      per MoE layer, the traffic the all-to-all is costed from carries every pair: what
//                each rank sends in it (plus its self pairs) is what it dispatched, and what it
//                receives is what its experts processed (full matrix and margins alike)
//   kv           at the end of a run every rank's KV blocks are freed: allocated = freed, none
//                in use, no request left waiting or running
//   requests     every request finished, or was rejected with a reason (or, in a run stopped
//                early by a limit, is still in flight)
//   memory       per rank, weights + activations + buffers + reserve + the most KV ever in use
//                never exceed the device's memory
#pragma once

#include <cstdint>
#include <span>

#include "models/memory.h"
#include "sim/metrics.h"
#include "sim/time.h"

namespace moesim::sim {

// `what` names the clock ("event queue", "request 7's tokens").
void check_clock(Time previous, Time next, const char* what);

void check_layer_pairs(int moe_layer, std::int64_t dispatched, std::int64_t combined);

// `what` names the pairs compared ("sent by", "received by" with a rank; "sent between nodes"
// with rank -1); `expected` is what the draw dispatched or the experts processed, `carried` what
// the all-to-all's traffic holds. Inline: it runs per rank and MoE layer on every step.
[[noreturn]] void traffic_pairs_violated(int moe_layer, const char* what, int rank, std::int64_t expected,
                                         std::int64_t carried);
inline void check_traffic_pairs(int moe_layer, const char* what, int rank, std::int64_t expected,
                                std::int64_t carried) {
  if (expected != carried) [[unlikely]]
    traffic_pairs_violated(moe_layer, what, rank, expected, carried);
}

// `allocated` and `freed` count blocks over the whole run; `in_use` is the holding now.
void check_kv_drained(int rank, std::int64_t allocated, std::int64_t freed, std::int64_t in_use);

// `partial`: the run was stopped early, so requests may still be in flight.
void check_requests_accounted(std::span<const RequestRecord> records, bool partial);

void check_rank_memory(const models::MemoryPlan& plan, std::int64_t peak_kv_tokens, const char* pool);

}  // namespace moesim::sim
