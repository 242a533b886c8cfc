// Token-length distributions of prompts and outputs (a registry).
//
// fixed (value), uniform (integers in [min, max]), normal (mean, stddev; redrawn below 1),
// lognormal (arithmetic mean and sigma of ln length: mu = ln(mean) - sigma^2 / 2), empirical
// (resamples the lengths of a file). Every draw is rounded to an integer, at least 1, and at most
// `max` when max > 0. A LengthSampler validates its configuration once (and loads the empirical
// file), so drawing never fails.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/rng.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

// In the order of LengthDist (workload_config.h).
std::vector<RegistryEntry> length_distributions();
LengthDist length_distribution(std::string_view name);  // WorkloadError for an unknown name
std::string_view to_string(LengthDist dist);

// Lengths (and weights) of an empirical file: one length per line, or "length,weight"; blank
// lines and lines starting with '#' are skipped. Throws WorkloadError naming file:line.
struct EmpiricalLengths {
  std::vector<std::int64_t> lengths;
  std::vector<double> weights;
};
EmpiricalLengths read_empirical_lengths(const std::string& path);

class LengthSampler {
 public:
  // Throws WorkloadError for inconsistent parameters or a bad empirical file.
  explicit LengthSampler(const LengthConfig& config);
  std::int64_t operator()(Rng& rng);

 private:
  std::int64_t clamp(double x) const;
  LengthConfig c_;
  std::vector<std::int64_t> values_;
  std::discrete_distribution<std::size_t> pick_;
};

}  // namespace moesim::workloads
