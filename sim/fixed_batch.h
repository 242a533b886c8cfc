// Fixed-batch steps: one pool's step at a batch held constant, the way a fixed-batch benchmark
// measures an engine (every rank full, the same requests step after step).
//
// Serving runs mix ramp-up, admission and drain steps into their averages; a published
// steady-state figure (SGLang's decode at 256 sequences per GPU, its prefill at 16,384 tokens per
// GPU) is the step of a full batch. This runs the pool's first instance exactly as a simulation
// does (sim::InstanceStep: the same step model, routing streams and placement) on a batch built
// from the spec, for `warmup + steps` steps, and reports the mean of the last `steps` with the
// per-phase split. Nothing is fitted here: it is a measurement harness.
#pragma once

#include <cstdint>
#include <string>

#include "sim/simulation.h"
#include "sim/step_model.h"

namespace moesim::sim {

struct FixedBatchSpec {
  PoolRole pool = PoolRole::kDecode;  // the pool measured (a colocated deployment has only kColocated)
  // Decode: sequences per attention group, each with `kv` cached positions (the positions fed in
  // the step included) and feeding 1 + the pool's speculative draft tokens.
  int sequences = 0;
  std::int64_t kv = 0;
  // Prefill: `prefill_tokens` per attention group per step in whole prompts of `prompt` tokens
  // computed from scratch (no cached prefix); the last prompt is cut to fit the budget.
  std::int64_t prompt = 0;
  std::int64_t prefill_tokens = 0;
  int warmup_steps = 1;  // run first and not counted (EPLB statistics, memos)
  int steps = 4;         // averaged
};

struct FixedBatchResult {
  double step_ms = 0;          // mean step time
  double tokens_per_step = 0;  // per GPU: decode positions or prefill tokens fed
  PhaseTimes phase_ms{};       // per step: slowest rank per layer, summed over layers
  double exposed_comm_ms = 0;  // per step: compute idle on the busiest rank
  double lm_head_ms = 0;       // per step
  double runtime_ms = 0;       // per step: launches and host time beyond the kernels
  double tokens_per_gpu_s() const { return step_ms > 0 ? tokens_per_step / (step_ms * 1e-3) : 0.0; }
};

// Throws DeploymentError when the deployment has no pool of `spec.pool`, or the spec is empty.
FixedBatchResult run_fixed_batch(const SimulationConfig& config, const FixedBatchSpec& spec);

}  // namespace moesim::sim
