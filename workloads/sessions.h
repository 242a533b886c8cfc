// Multi-turn sessions (workload `sessions:`, docs/workloads.md "Sessions"): the chat workload
// whose turns share a growing prefix.
//
// Sessions start at the arrival process's times (poisson, gamma or constant; `rate` is sessions
// per second). A session has a number of turns drawn from `turns`; it picks one of
// `system_prompts` system prompts uniformly, of `system_prompt_tokens` tokens. Turn 1's prompt is
// the system prompt and a user message of `input_tokens` tokens; turn k's prompt is turn k-1's
// prompt, its reply (`output_tokens`) and a new user message, so each turn's prompt begins with
// the whole conversation before it (the prefix a cache can hold: workloads/arrivals.h PrefixKey).
// Turn 1 has the session's arrival time; a later turn is sent by the simulator when the turn
// before it is done (finished or rejected), after a think time drawn from an exponential
// distribution of mean `think_time` (Request::think_ns; 0: at once). `requests` counts turns: the
// last session is cut short when they run out. Prompts are capped at kMaxRequestTokens.
//
// Requests come in session order (a session's turns consecutive, Request::next_turn linking
// them); first turns are in arrival-time order among themselves, later turns have
// arrival_ns = kArrivesOnRelease.
#pragma once

#include <vector>

#include "workloads/arrivals.h"

namespace moesim::workloads {

// Throws WorkloadError for a bad parameter (the scenario loader checks them first).
std::vector<Request> generate_sessions(const WorkloadConfig& config, Rng& rng);

}  // namespace moesim::workloads
