#include "workloads/lengths.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool parse_double(const std::string& s, double& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

}  // namespace

std::vector<RegistryEntry> length_distributions() {
  return {
      {"fixed", "every request has exactly `value` tokens"},
      {"uniform", "integers uniform in [min, max]"},
      {"normal", "normal(mean, stddev), redrawn below 1 token"},
      {"lognormal", "lognormal with arithmetic `mean` and `sigma` of ln(length): heavy right tail"},
      {"empirical", "resamples the lengths listed in the file `path` (optionally weighted)"},
  };
}

LengthDist length_distribution(std::string_view name) {
  return registry_value<LengthDist>(length_distributions(), name, "length distribution");
}

std::string_view to_string(LengthDist dist) { return registry_name(length_distributions(), dist); }

EmpiricalLengths read_empirical_lengths(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw WorkloadError(path + ": cannot open the lengths file");
  EmpiricalLengths out;
  std::string line;
  std::int64_t no = 0;
  while (std::getline(in, line)) {
    ++no;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.find(',');
    double len = 0, weight = 1;
    if (!parse_double(trim(line.substr(0, comma)), len) || !(len >= 1) || len > 1e12)
      fail_at_line(path, no, "expected a length >= 1, got '" + line + "'");
    if (comma != std::string::npos &&
        (!parse_double(trim(line.substr(comma + 1)), weight) || !(weight >= 0) || !std::isfinite(weight)))
      fail_at_line(path, no, "expected a non-negative weight after the comma, got '" + line + "'");
    out.lengths.push_back(std::llround(len));
    out.weights.push_back(weight);
  }
  double total = 0;
  for (double w : out.weights) total += w;
  if (out.lengths.empty() || !(total > 0)) throw WorkloadError(path + ": no lengths with positive weight");
  return out;
}

LengthSampler::LengthSampler(const LengthConfig& config) : c_(config) {
  const auto bad = [&](const std::string& why) {
    throw WorkloadError("length distribution '" + std::string(to_string(c_.dist)) + "': " + why);
  };
  if (c_.max < 0) bad("max must be >= 0");
  switch (c_.dist) {
    case LengthDist::kFixed:
      if (c_.value < 1) bad("value must be >= 1");
      break;
    case LengthDist::kUniform:
      if (c_.min < 1 || c_.max < c_.min) bad("needs 1 <= min <= max");
      break;
    case LengthDist::kNormal:
      if (!(c_.mean >= 1) || !(c_.stddev >= 0)) bad("needs mean >= 1 and stddev >= 0");
      break;
    case LengthDist::kLognormal:
      if (!(c_.mean >= 1) || !(c_.sigma >= 0) || c_.sigma > 10) bad("needs mean >= 1 and 0 <= sigma <= 10");
      break;
    case LengthDist::kEmpirical: {
      auto e = read_empirical_lengths(c_.path);
      values_ = std::move(e.lengths);
      pick_ = std::discrete_distribution<std::size_t>(e.weights.begin(), e.weights.end());
      break;
    }
  }
}

std::int64_t LengthSampler::clamp(double x) const {
  double v = std::max(1.0, std::round(x));
  if (c_.max > 0) v = std::min(v, static_cast<double>(c_.max));
  return static_cast<std::int64_t>(std::min(v, 1e15));
}

std::int64_t LengthSampler::operator()(Rng& rng) {
  if (c_.dist == LengthDist::kFixed) return clamp(static_cast<double>(c_.value));
  if (c_.dist == LengthDist::kUniform) return std::uniform_int_distribution<std::int64_t>(c_.min, c_.max)(rng);
  if (c_.dist == LengthDist::kNormal) {
    std::normal_distribution<double> n(c_.mean, c_.stddev);
    for (int i = 0; i < 1000; ++i) {
      const double x = n(rng);
      if (x >= 0.5) return clamp(x);  // rounds to >= 1: truncation of the normal at 1 token
    }
    return 1;
  }
  if (c_.dist == LengthDist::kLognormal) {
    const double mu = std::log(c_.mean) - 0.5 * c_.sigma * c_.sigma;
    return clamp(std::lognormal_distribution<double>(mu, c_.sigma)(rng));
  }
  return clamp(static_cast<double>(values_[pick_(rng)]));
}

}  // namespace moesim::workloads
