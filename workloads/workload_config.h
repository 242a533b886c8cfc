// Typed configuration of the request workload (arrivals, lengths, prefix-cache hits) and of
// routing. Every field has a documented default; docs/workloads.md explains each process,
// distribution and routing model. The scenario loader exposes the fields as YAML keys.
#pragma once

#include <cstdint>
#include <string>

namespace moesim::workloads {

// Each enum lists its registry's entries in order (registry.h): the loader resolves a name once,
// the rest of the program passes the value, and text written out takes the registry's name.
enum class ArrivalProcess { kPoisson, kGamma, kConstant, kClosedLoop, kTrace };  // arrival_processes()
enum class TraceFormat { kAuto, kCsv, kJsonl };                                  // trace_formats()
enum class LengthDist { kFixed, kUniform, kNormal, kLognormal, kEmpirical };     // length_distributions()
enum class PrefixHitDist { kFixed, kUniform, kBeta, kTrace, kCache };            // prefix_hit_distributions()
enum class RoutingModelKind {                                                    // routing_models()
  kUniform,
  kZipf,
  kHotSet,
  kDirichletDrift,
  kLayeredLognormal,
  kGroupLimited,
  kTrace
};
enum class CountMethod { kFast, kExact };  // count_methods() (binomial.h)

struct ArrivalConfig {
  ArrivalProcess process = ArrivalProcess::kPoisson;  // see workloads/arrivals.h
  double rate_per_s = 10.0;                           // mean arrival rate (poisson, gamma, constant)
  double cv = 1.0;              // gamma: coefficient of variation of the gaps (1 = Poisson, >1 bursty)
  int concurrency = 1;          // closed-loop: requests in flight at once
  double think_time_s = 0.0;    // closed-loop: delay between a completion and the next release
  std::string trace_path = "";  // trace: CSV or JSONL request trace (workloads/trace_replay.h)
  TraceFormat trace_format = TraceFormat::kAuto;  // trace: auto (by extension), csv or jsonl
  double time_scale = 1.0;                        // trace: arrival times are multiplied by this (0.5 = twice the load)
};

struct LengthConfig {
  LengthDist dist = LengthDist::kFixed;  // see workloads/lengths.h
  std::int64_t value = 1;                // fixed: every request has this many tokens
  std::int64_t min = 1;                  // uniform: inclusive bounds; every distribution is clamped to [1, max]
  std::int64_t max = 0;                  //   when max > 0
  double mean = 0.0;                     // normal, lognormal: the mean length in tokens
  double stddev = 0.0;                   // normal: standard deviation in tokens (truncated to >= 1)
  double sigma = 0.0;                    // lognormal: standard deviation of ln(length)
  std::string path = "";                 // empirical: file of lengths (one per line, or "length,weight")
};

struct PrefixHitConfig {
  PrefixHitDist dist = PrefixHitDist::kFixed;  // see workloads/prefix_hit.h
  double value = 0.0;                          // fixed: fraction of every prompt already in the prefix cache
  double min = 0.0;                            // uniform: bounds of the fraction
  double max = 0.0;
  double mean = 0.0;            // beta: mean fraction ...
  double concentration = 10.0;  // ... and alpha + beta (larger = tighter around the mean)
  // trace, cache: tokens per hash block: 512 for the Mooncake traces' hash_ids; with sessions the
  // granularity at which a prefix cache matches (vLLM's default KV block is 16 tokens).
  int block_tokens = 512;
};

// Multi-turn sessions (workloads/sessions.h): sessions start by the arrival process; each turn's
// prompt is the whole conversation so far (an optional shared system prompt, every earlier
// prompt and reply) plus a new user message of `input_tokens` tokens, and the next turn is sent
// when the reply has finished plus a think time. `requests` counts turns.
struct SessionConfig {
  bool enabled = false;
  LengthConfig turns{LengthDist::kFixed, 1};  // turns per session (any length distribution)
  double think_time_s = 0.0;                  // mean of the exponential wait between a reply and the next turn
  std::int64_t system_prompt_tokens = 0;      // a system prompt shared by every session that uses it
  int system_prompts = 1;                     // distinct system prompts; each session picks one uniformly
};

struct WorkloadConfig {
  std::int64_t requests = 100;  // number of requests to generate (trace: at most this many rows)
  ArrivalConfig arrivals;
  LengthConfig input_tokens{LengthDist::kFixed, 1000};
  LengthConfig output_tokens{LengthDist::kFixed, 100};
  PrefixHitConfig prefix_hit{};
  SessionConfig sessions{};
};

// DeepSeek-style group-limited routing: each token's experts come from at most `top_groups` of
// `groups` contiguous expert groups. 0 means "take the model's expert_groups / top_groups".
struct GroupLimitConfig {
  bool enabled = false;
  int groups = 0;
  int top_groups = 0;
};

constexpr int kMaxReuseDraws = 1024;  // RoutingConfig::reuse_draws' upper bound (memory: sim/route_memo.h)

struct RoutingConfig {
  RoutingModelKind model = RoutingModelKind::kUniform;  // see workloads/routing_model.h
  double s = 1.0;                                       // zipf: exponent (0 = uniform)
  int hot_experts = 8;                                  // hot-set: size h of the hot set per layer ...
  double hot_fraction = 0.5;                            // ... which receives this fraction f of the assignments
  double alpha = 1.0;                     // dirichlet-drift: concentration of the initial Dirichlet popularity
  double drift_rho = 0.99;                // dirichlet-drift: AR(1) coefficient of the logits per interval
  double drift_sigma = 0.5;               // dirichlet-drift: stationary standard deviation of the logit drift
  std::int64_t drift_interval_steps = 1;  // dirichlet-drift: steps between AR(1) updates
  // layered-lognormal (workloads/routing_layered.cpp): per-layer log-normal popularity whose skew
  // varies across layers, drifting over steps. Defaults fitted to measured DeepSeek-R1 serving
  // statistics (expert_load_deepseek_r1.md: TensorRT-LLM, EP32; docs/workloads.md).
  double layer_sigma = 1.0;                            // median over layers of the std of an expert's log-popularity
  double layer_sigma_spread = 0.4;                     // std of ln(layer_sigma) across layers (hot and cool layers)
  double step_sigma = 0.2;                             // std of the drifting part of the log-popularity
  std::int64_t step_memory = 200;                      // steps over which the drift decorrelates
  std::int64_t step_interval = 16;                     // steps between popularity updates (piecewise constant)
  RoutingModelKind base = RoutingModelKind::kUniform;  // group-limited: the popularity model whose marginals it keeps
  std::string trace_path = "";                         // trace: routing-trace file (models/routing_trace.h)
  GroupLimitConfig group_limit{};                      // any model: restrict each token to top_groups of groups
  CountMethod counts = CountMethod::kFast;             // how binomial counts are drawn (workloads/binomial.h)
  // Draws kept per MoE layer and tokens per rank, then replayed at random (sim/route_memo.h):
  // each step's draw keeps its law, steps sharing a draw are correlated. 0: every draw fresh.
  int reuse_draws = 0;
  // With reuse_draws: MoE layers whose draws have one law (popularity and placement) keep one
  // pool of reuse_draws x ceil(sqrt(layers)) draws instead of one each (sim/route_memo.h).
  bool share_draws = false;
};

}  // namespace moesim::workloads
