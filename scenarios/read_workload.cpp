// `workload:` -> workloads::WorkloadConfig (docs/scenario-reference.md, "workload").
//
// As for routing, every parameter is range-checked whichever process or distribution is chosen,
// and the chosen one's needs (a rate, a file, min <= max, ...) are checked for it: the checks of
// workloads/arrivals.cpp, lengths.cpp and prefix_hit.cpp, made here with a position.
#include "scenarios/read_sections.h"
#include "workloads/arrivals.h"
#include "workloads/input_limits.h"
#include "workloads/lengths.h"
#include "workloads/prefix_hit.h"
#include "workloads/trace_replay.h"

namespace moesim::scenarios {

const std::vector<std::string_view> kWorkloadKeys = {"requests",      "arrivals",   "input_tokens",
                                                     "output_tokens", "prefix_hit", "sessions"};

namespace {

using workloads::kMaxRequests;
using workloads::kMaxRequestTokens;

using workloads::ArrivalProcess;
using workloads::LengthDist;
using workloads::PrefixHitDist;

template <typename Enum>
[[noreturn]] void needs(const MapReader& m, std::string_view kind, Enum value, std::string_view what) {
  fail_at(m.loc(), m.path(),
          std::string(kind) + " '" + std::string(workloads::to_string(value)) + "' needs " + std::string(what));
}

void read_arrivals(const MapReader& m, const PathContext& paths, workloads::ArrivalConfig& a) {
  if (auto f = m.get("process"))
    a.process = as_registry_value<ArrivalProcess>(*f, "arrival process", workloads::arrival_processes());
  if (auto f = m.get("rate")) a.rate_per_s = positive(*f, as_rate_per_s(*f), "a rate");
  if (auto f = m.get("cv")) a.cv = positive(*f, as_number(*f), "a number");
  if (auto f = m.get("concurrency")) a.concurrency = as_int(*f, 1);
  if (auto f = m.get("think_time")) a.think_time_s = as_duration_ns(*f) / 1e9;
  const auto trace = m.get("trace_path");
  if (trace) a.trace_path = paths.existing_file(*trace, "request trace");
  if (auto f = m.get("trace_format"))
    a.trace_format = as_registry_value<workloads::TraceFormat>(*f, "trace format", workloads::trace_formats());
  if (auto f = m.get("time_scale")) a.time_scale = positive(*f, as_number(*f), "a number");
  if (a.process == ArrivalProcess::kTrace && !trace) needs(m, "process", a.process, "trace_path");
}

void read_lengths(const MapReader& m, const PathContext& paths, workloads::LengthConfig& l) {
  if (auto f = m.get("dist"))
    l.dist = as_registry_value<LengthDist>(*f, "length distribution", workloads::length_distributions());
  if (auto f = m.get("value")) l.value = as_int64(*f, 1, kMaxRequestTokens);
  const auto min = m.get("min");
  const auto max = m.get("max");
  if (min) l.min = as_int64(*min, 1, kMaxRequestTokens);
  if (max) l.max = as_int64(*max, 0, kMaxRequestTokens);
  const auto mean = m.get("mean");
  if (mean) {
    l.mean = as_number(*mean);
    if (!(l.mean >= 1 && l.mean <= static_cast<double>(kMaxRequestTokens)))
      mean->fail("expected a number in [1, " + std::to_string(kMaxRequestTokens) + "], got " + mean->node->scalar);
  }
  if (auto f = m.get("stddev")) {
    l.stddev = as_number(*f);
    if (!(l.stddev >= 0)) f->fail("expected a number >= 0, got " + f->node->scalar);
  }
  const auto sigma = m.get("sigma");
  if (sigma) l.sigma = as_number_in(*sigma, 0, 10);
  const auto path = m.get("path");
  if (path) l.path = paths.existing_file(*path, "lengths file");

  if (l.dist == LengthDist::kUniform) {
    if (!max || l.max == 0) needs(m, "dist", l.dist, "max (and min, default 1)");
    if (l.min > l.max) max->fail("expected max >= min " + std::to_string(l.min) + ", got " + std::to_string(l.max));
  } else if ((l.dist == LengthDist::kNormal || l.dist == LengthDist::kLognormal) && !mean) {
    needs(m, "dist", l.dist, l.dist == LengthDist::kNormal ? "mean (and stddev)" : "mean (and sigma)");
  } else if (l.dist == LengthDist::kEmpirical && !path) {
    needs(m, "dist", l.dist, "path");
  }
}

void read_prefix_hit(const MapReader& m, workloads::PrefixHitConfig& p) {
  if (auto f = m.get("dist"))
    p.dist = as_registry_value<PrefixHitDist>(*f, "prefix hit distribution", workloads::prefix_hit_distributions());
  if (auto f = m.get("value")) p.value = as_number_in(*f, 0, 1);
  const auto min = m.get("min");
  const auto max = m.get("max");
  if (min) p.min = as_number_in(*min, 0, 1);
  if (max) p.max = as_number_in(*max, 0, 1);
  const auto mean = m.get("mean");
  if (mean) {
    p.mean = as_number(*mean);
    if (!(p.mean > 0 && p.mean < 1)) mean->fail("expected a number in (0, 1), got " + mean->node->scalar);
  }
  if (auto f = m.get("concentration")) p.concentration = positive(*f, as_number(*f), "a number");
  if (auto f = m.get("block_tokens")) p.block_tokens = as_int(*f, 1);
  if (p.dist == PrefixHitDist::kUniform && p.min > p.max) {
    const std::string msg = "expected max >= min " + number_text(p.min) + ", got " + number_text(p.max);
    (max ? *max : *min).fail(msg);
  }
  if (p.dist == PrefixHitDist::kBeta && !mean) needs(m, "dist", p.dist, "mean (and concentration)");
}

}  // namespace

workloads::WorkloadConfig read_workload(const MapReader& m, const PathContext& paths) {
  workloads::WorkloadConfig w;
  if (auto f = m.get("requests")) w.requests = as_int64(*f, 1, kMaxRequests);
  read_arrivals(m.map("arrivals", {"process", "rate", "cv", "concurrency", "think_time", "trace_path", "trace_format",
                                   "time_scale"}),
                paths, w.arrivals);
  const std::vector<std::string_view> length_keys = {"dist", "value", "min", "max", "mean", "stddev", "sigma", "path"};
  read_lengths(m.map("input_tokens", length_keys), paths, w.input_tokens);
  read_lengths(m.map("output_tokens", length_keys), paths, w.output_tokens);

  const auto sessions = m.get("sessions");
  if (sessions) {
    const MapReader sm = m.map("sessions", {"turns", "think_time", "system_prompt_tokens", "system_prompts"});
    auto& se = w.sessions;
    se.enabled = true;
    read_lengths(sm.map("turns", length_keys), paths, se.turns);
    if (auto f = sm.get("think_time")) se.think_time_s = as_duration_ns(*f) / 1e9;
    if (auto f = sm.get("system_prompt_tokens")) se.system_prompt_tokens = as_int64(*f, 0, kMaxRequestTokens);
    if (auto f = sm.get("system_prompts")) se.system_prompts = as_int(*f, 1);
    const auto p = w.arrivals.process;
    if (p != ArrivalProcess::kPoisson && p != ArrivalProcess::kGamma && p != ArrivalProcess::kConstant)
      sessions->fail_at_key("sessions start by an open-loop arrival process (poisson, gamma or constant), not '" +
                            std::string(workloads::to_string(p)) + "'");
    w.prefix_hit.dist = PrefixHitDist::kCache;  // the conversation's earlier turns are what the caches hold
    w.prefix_hit.block_tokens = 16;             // match at vLLM's default KV block size unless told otherwise
  }
  if (const auto f = m.get("prefix_hit")) {
    if (sessions && f->node->kind != YamlNode::Kind::kMap)
      f->fail_at_key(
          "with sessions, prefix hits come from the prefix caches: give prefix_hit {dist: cache} or leave it out");
    if (f->node->kind == YamlNode::Kind::kScalar) {
      w.prefix_hit.value = as_number_in(*f, 0, 1);  // `prefix_hit: 0.5`: every prompt 50 % cached
    } else {
      read_prefix_hit(m.map("prefix_hit", {"dist", "value", "min", "max", "mean", "concentration", "block_tokens"}),
                      w.prefix_hit);
      if (w.prefix_hit.dist == PrefixHitDist::kTrace && w.arrivals.process != ArrivalProcess::kTrace)
        f->fail_at_key("prefix hit 'trace' needs arrivals process 'trace' (the hits come from the trace's hash_ids)");
      if (w.prefix_hit.dist == PrefixHitDist::kCache && w.arrivals.process != ArrivalProcess::kTrace && !sessions)
        f->fail_at_key(
            "prefix hit 'cache' needs named blocks: arrivals process 'trace' (its hash_ids) or sessions (their "
            "conversations)");
      if (sessions && w.prefix_hit.dist != PrefixHitDist::kCache)
        f->fail_at_key(
            "with sessions, prefix hits come from the prefix caches: give prefix_hit {dist: cache} or leave it out");
    }
  }
  return w;
}

}  // namespace moesim::scenarios
