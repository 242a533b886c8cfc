#include "workloads/sessions.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "workloads/arrivals.h"
#include "workloads/input_limits.h"
#include "workloads/lengths.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {

std::vector<Request> generate_sessions(const WorkloadConfig& config, Rng& rng) {
  const SessionConfig& s = config.sessions;
  const auto& a = config.arrivals;
  using enum ArrivalProcess;
  if (a.process != kPoisson && a.process != kGamma && a.process != kConstant)
    throw WorkloadError("sessions start by an open-loop process (poisson, gamma or constant), not '" +
                        std::string(to_string(a.process)) + "'");
  if (!(s.think_time_s >= 0) || s.system_prompt_tokens < 0 || s.system_prompts < 1)
    throw WorkloadError("sessions need think_time >= 0, system_prompt_tokens >= 0 and system_prompts >= 1");
  LengthSampler turns(s.turns), input(config.input_tokens), output(config.output_tokens);
  ArrivalClock clock(a);
  std::exponential_distribution<double> think(s.think_time_s > 0 ? 1.0 / s.think_time_s : 1.0);
  std::uniform_int_distribution<int> system(0, s.system_prompts - 1);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(config.requests));
  for (std::uint64_t session = 0; static_cast<std::int64_t>(out.size()) < config.requests; ++session) {
    const std::int64_t start = clock.next(rng);
    const std::int64_t n = turns(rng);
    PrefixKey key;
    key.session = session + 1;
    if (s.system_prompt_tokens > 0) {
      key.system = static_cast<std::uint64_t>(system(rng)) + 1;
      key.system_tokens = s.system_prompt_tokens;
    }
    std::int64_t context = s.system_prompt_tokens;  // the conversation before this turn's message
    for (std::int64_t t = 0; t < n && static_cast<std::int64_t>(out.size()) < config.requests; ++t) {
      Request r;
      r.id = static_cast<std::int64_t>(out.size());
      r.input_tokens = std::min(context + input(rng), kMaxRequestTokens);
      r.output_tokens = output(rng);
      r.prefix = key;
      if (t == 0) {
        r.arrival_ns = start;
      } else {
        r.arrival_ns = kArrivesOnRelease;
        r.think_ns = s.think_time_s > 0 ? std::llround(think(rng) * 1e9) : 0;
        out.back().next_turn = r.id;
      }
      context = std::min(r.input_tokens + r.output_tokens, kMaxRequestTokens);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace moesim::workloads
