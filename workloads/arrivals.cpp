#include "workloads/arrivals.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "workloads/input_limits.h"
#include "workloads/lengths.h"
#include "workloads/prefix_hit.h"
#include "workloads/trace_replay.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {

std::int64_t Request::cached_tokens() const {
  const auto t = static_cast<std::int64_t>(std::floor(prefix_hit * static_cast<double>(input_tokens)));
  return std::clamp<std::int64_t>(t, 0, std::max<std::int64_t>(0, input_tokens - 1));
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

std::vector<Request> generate_requests(const WorkloadConfig& config, Rng& rng) {
  const auto& a = config.arrivals;
  const auto& valid = arrival_processes();
  if (std::none_of(valid.begin(), valid.end(), [&](const RegistryEntry& e) { return e.name == a.process; }))
    throw std::invalid_argument("unknown arrival process '" + a.process + "' (valid: " + join_names(valid) + ")");
  const bool open_rate = a.process == "poisson" || a.process == "gamma" || a.process == "constant";
  if (open_rate && !(a.rate_per_s > 0)) throw std::invalid_argument("arrival rate must be positive");
  if (a.process == "gamma" && !(a.cv > 0)) throw std::invalid_argument("gamma arrivals need cv > 0");
  if (a.process == "closed-loop" && (a.concurrency < 1 || !(a.think_time_s >= 0)))
    throw std::invalid_argument("closed-loop arrivals need concurrency >= 1 and think_time >= 0");
  if (a.process == "trace" && !(a.time_scale > 0)) throw std::invalid_argument("trace time_scale must be positive");
  if (config.requests < 0) throw std::invalid_argument("requests must be >= 0");

  PrefixHitSampler prefix(config.prefix_hit);
  std::vector<Request> out;
  if (a.process == "trace") {
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
      out.push_back(r);
    }
    return out;
  }

  LengthSampler input(config.input_tokens), output(config.output_tokens);
  out.reserve(static_cast<std::size_t>(config.requests));
  std::exponential_distribution<double> exp_gap(a.rate_per_s > 0 ? a.rate_per_s : 1.0);
  // Gamma gaps with mean 1/rate and CV cv: shape k = 1/cv², scale θ = 1/(rate·k).
  const double k = 1.0 / (a.cv * a.cv);
  std::gamma_distribution<double> gamma_gap(k, 1.0 / ((a.rate_per_s > 0 ? a.rate_per_s : 1.0) * k));
  double t_s = 0;
  for (std::int64_t i = 0; i < config.requests; ++i) {
    // Poisson and gamma: the first arrival also waits a gap; constant: one every 1/rate, computed
    // as i / rate (summing 1/rate drifts by rounding error over long runs).
    Request r;
    r.id = i;
    if (a.process == "poisson") {
      t_s += exp_gap(rng);
      r.arrival_ns = horizon(t_s * 1e9, i);
    } else if (a.process == "gamma") {
      t_s += gamma_gap(rng);
      r.arrival_ns = horizon(t_s * 1e9, i);
    } else if (a.process == "constant") {
      r.arrival_ns = horizon(static_cast<double>(i) * 1e9 / a.rate_per_s, i);
    } else {
      r.arrival_ns = kArrivesOnRelease;
    }
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
