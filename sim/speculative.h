// Speculative decoding and multi-token prediction: the acceptance model and the checks on a
// pool's `speculative` configuration.
//
// Each decode step of a request feeds its newest token and k draft tokens through the target
// model (verification: k + 1 positions), then keeps the longest accepted prefix of the drafts
// plus one token from the target itself: the correction at the first rejected position, or the
// bonus token after k accepted (Leviathan, Kalman and Matias 2023, "Fast Inference from
// Transformers via Speculative Decoding", §3; Chen et al. 2023 for the same scheme). Draft
// position i is accepted with probability a_i given that the positions before it were;
// Leviathan et al.'s i.i.d. model is a_i = α for every i, for which the expected tokens per step
// are (1 - α^(k+1)) / (1 - α) (their eq. 1). A list of per-position a_i describes measured
// acceptance curves (MTP acceptance falls with depth).
//
// Drafts come from the model's own MTP modules (DeepSeek-V3 technical report §2.2: one
// sequential module per extra depth; inference reuses the single module for k > 1, as SGLang's
// EAGLE-style MTP does) or from a separate dense draft model (sim/speculative_draft.h costs
// both).
#pragma once

#include <optional>
#include <string>

#include "models/model_spec.h"
#include "sim/deployment_config.h"
#include "sim/deployment_rules.h"
#include "workloads/rng.h"

namespace moesim::sim {

// Acceptance probability of draft position i (0-based).
double acceptance_at(const SpeculativeConfig& spec, int position);
// Expected tokens a step emits per request: Σ_{i=0..k} Π_{j<i} a_j.
double expected_emitted_tokens(const SpeculativeConfig& spec);
// Draws how many of the k drafts are accepted (0 … k): position by position until the first
// rejection, one uniform draw each.
int draw_accepted(const SpeculativeConfig& spec, workloads::Rng& rng);

// Why the pool's speculative configuration cannot run on `model` (and the field to change), or
// none when it can (one of pool_problem()'s rules).
std::optional<DeploymentProblem> speculative_problem(const PoolConfig& pool, const models::ModelSpec& model);

}  // namespace moesim::sim
