#include "workloads/arrivals.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace moesim::workloads {
namespace {

std::string names(const std::vector<RegistryEntry>& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::int64_t draw_length(const LengthConfig& c, Rng&) {
  if (c.dist == "fixed") return c.value;
  throw std::invalid_argument("unknown length distribution '" + c.dist + "' (valid: " +
                              names(length_distributions()) + ")");
}

}  // namespace

std::vector<RegistryEntry> arrival_processes() {
  return {
      {"poisson", "exponential inter-arrival times at the given mean rate (open loop)"},
      {"constant", "evenly spaced arrivals at the given rate (open loop)"},
  };
}

std::vector<RegistryEntry> length_distributions() {
  return {{"fixed", "every request has exactly `value` tokens"}};
}

std::vector<Request> generate_requests(const WorkloadConfig& config, Rng& rng) {
  const auto& a = config.arrivals;
  if (a.process != "poisson" && a.process != "constant")
    throw std::invalid_argument("unknown arrival process '" + a.process + "' (valid: " +
                                names(arrival_processes()) + ")");
  if (!(a.rate_per_s > 0)) throw std::invalid_argument("arrival rate must be positive");
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(config.requests));
  std::exponential_distribution<double> gap(a.rate_per_s);
  double t_s = 0;
  for (std::int64_t i = 0; i < config.requests; ++i) {
    // Poisson: the first arrival also waits an exponential gap; constant: one every 1/rate,
    // computed as i / rate (summing 1/rate drifts by rounding error over long runs).
    Request r;
    r.id = i;
    if (a.process == "poisson") {
      t_s += gap(rng);
      r.arrival_ns = std::llround(t_s * 1e9);
    } else {
      r.arrival_ns = std::llround(static_cast<double>(i) * 1e9 / a.rate_per_s);
    }
    r.input_tokens = draw_length(config.input_tokens, rng);
    r.output_tokens = draw_length(config.output_tokens, rng);
    out.push_back(r);
  }
  return out;
}

}  // namespace moesim::workloads
