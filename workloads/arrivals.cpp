#include "workloads/arrivals.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "workloads/input_limits.h"
#include "workloads/lengths.h"
#include "workloads/prefix_hit.h"
#include "workloads/sessions.h"
#include "workloads/trace_replay.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {

std::int64_t Request::cached_tokens() const {
  const auto t = static_cast<std::int64_t>(std::floor(prefix_hit * static_cast<double>(input_tokens)));
  return std::clamp<std::int64_t>(t, 0, std::max<std::int64_t>(0, input_tokens - 1));
}

std::int64_t PrefixKey::blocks(std::int64_t tokens, int block_tokens) const {
  if (!hashes.empty())
    return std::min<std::int64_t>(static_cast<std::int64_t>(hashes.size()), (tokens + block_tokens - 1) / block_tokens);
  return session == 0 ? 0 : tokens / block_tokens;
}

std::uint64_t PrefixKey::block(std::int64_t j, int block_tokens) const {
  if (!hashes.empty()) return hashes[static_cast<std::size_t>(j)];
  const bool shared = system != 0 && (j + 1) * block_tokens <= system_tokens;
  // splitmix64's finaliser over (owner, block): distinct owners' blocks never meet in practice.
  std::uint64_t z =
      (shared ? system : session | (std::uint64_t{1} << 63)) * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(j);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<RegistryEntry> arrival_processes() {
  return {
      {"poisson", "exponential inter-arrival times at the given mean rate (open loop)"},
      {"gamma", "gamma inter-arrival times at the mean rate with coefficient of variation cv (bursty if cv > 1)"},
      {"constant", "evenly spaced arrivals at the given rate (open loop)"},
      {"closed-loop", "`concurrency` requests in flight; each completion releases the next (after think_time)"},
      {"trace", "replays arrival times and lengths from a CSV (Azure LLM traces) or JSONL (Mooncake) file"},
  };
}

ArrivalProcess arrival_process(std::string_view name) {
  return registry_value<ArrivalProcess>(arrival_processes(), name, "arrival process");
}

std::string_view to_string(ArrivalProcess process) { return registry_name(arrival_processes(), process); }

namespace {

// Arrival nanoseconds, refused past the clock's horizon (input_limits.h) rather than overflowing.
std::int64_t horizon(double arrival_ns, std::int64_t i) {
  if (!(arrival_ns <= kMaxArrivalNs))
    throw WorkloadError("workload.arrivals: request " + std::to_string(i) + " would arrive after " +
                        std::to_string(arrival_ns / 1e9) + " s, beyond the 4e9 s the simulator's clock holds " +
                        "(is the rate too low?)");
  return std::llround(arrival_ns);
}

}  // namespace

ArrivalClock::ArrivalClock(const ArrivalConfig& config)
    : a_(config), exp_gap_(config.rate_per_s > 0 ? config.rate_per_s : 1.0) {
  // Gamma gaps with mean 1/rate and CV cv: shape k = 1/cv², scale θ = 1/(rate·k).
  const double k = 1.0 / (config.cv * config.cv);
  gamma_gap_ = std::gamma_distribution<double>(k, 1.0 / ((config.rate_per_s > 0 ? config.rate_per_s : 1.0) * k));
}

std::int64_t ArrivalClock::next(Rng& rng) {
  const std::int64_t i = i_++;
  if (a_.process == ArrivalProcess::kPoisson) {
    t_s_ += exp_gap_(rng);
  } else if (a_.process == ArrivalProcess::kGamma) {
    t_s_ += gamma_gap_(rng);
  } else {  // constant: computed as i / rate (summing 1/rate drifts by rounding error over long runs)
    return horizon(static_cast<double>(i) * 1e9 / a_.rate_per_s, i);
  }
  return horizon(t_s_ * 1e9, i);
}

std::vector<Request> generate_requests(const WorkloadConfig& config, Rng& rng) {
  const auto& a = config.arrivals;
  using enum ArrivalProcess;
  const bool open_rate = a.process == kPoisson || a.process == kGamma || a.process == kConstant;
  if (open_rate && !(a.rate_per_s > 0)) throw WorkloadError("arrival rate must be positive");
  if (a.process == kGamma && !(a.cv > 0)) throw WorkloadError("gamma arrivals need cv > 0");
  if (a.process == kClosedLoop && (a.concurrency < 1 || !(a.think_time_s >= 0)))
    throw WorkloadError("closed-loop arrivals need concurrency >= 1 and think_time >= 0");
  if (a.process == kTrace && !(a.time_scale > 0)) throw WorkloadError("trace time_scale must be positive");
  if (config.requests < 0) throw WorkloadError("requests must be >= 0");

  PrefixHitSampler prefix(config.prefix_hit);
  std::vector<Request> out;
  if (a.process == kTrace) {
    RequestTraceOptions o;
    o.format = a.trace_format;
    o.block_tokens = config.prefix_hit.block_tokens;
    o.max_rows = config.requests;
    const auto rows = read_request_trace(a.trace_path, o);
    out.reserve(rows.size());
    for (const auto& t : rows) {
      Request r;
      r.id = static_cast<std::int64_t>(out.size());
      r.arrival_ns = horizon(static_cast<double>(t.arrival_ns) * a.time_scale, r.id);
      r.input_tokens = t.input_tokens;
      r.output_tokens = t.output_tokens;
      r.prefix_hit = prefix.from_trace() ? t.prefix_hit : prefix(rng);
      if (prefix.from_caches()) r.prefix.hashes = t.hash_ids;
      out.push_back(r);
    }
    return out;
  }

  if (config.sessions.enabled) return generate_sessions(config, rng);
  LengthSampler input(config.input_tokens), output(config.output_tokens);
  out.reserve(static_cast<std::size_t>(config.requests));
  const bool open = a.process != kClosedLoop;
  ArrivalClock clock(a);
  for (std::int64_t i = 0; i < config.requests; ++i) {
    Request r;
    r.id = i;
    r.arrival_ns = open ? clock.next(rng) : kArrivesOnRelease;
    r.input_tokens = input(rng);
    r.output_tokens = output(rng);
    r.prefix_hit = prefix(rng);
    out.push_back(r);
  }
  return out;
}

ClosedLoop::ClosedLoop(std::vector<Request>& requests, const ArrivalConfig& config)
    : requests_(requests),
      concurrency_(static_cast<std::size_t>(std::max(1, config.concurrency))),
      think_ns_(std::llround(config.think_time_s * 1e9)) {}

std::vector<std::size_t> ClosedLoop::initial() {
  std::vector<std::size_t> out;
  for (; next_ < requests_.size() && next_ < concurrency_; ++next_) {
    requests_[next_].arrival_ns = 0;
    out.push_back(next_);
  }
  return out;
}

std::int64_t ClosedLoop::on_finish(std::int64_t now_ns) {
  if (next_ >= requests_.size()) return -1;
  requests_[next_].arrival_ns = now_ns + think_ns_;
  return static_cast<std::int64_t>(next_++);
}

}  // namespace moesim::workloads
