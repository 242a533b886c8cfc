#include "calibration/token_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "calibration/calibration_error.h"

namespace moesim::calibration {
namespace {

std::vector<double> weights(int n, SplitDistribution distribution, double s) {
  if (!(s >= 0)) throw CalibrationError("zipf exponent must be >= 0");
  std::vector<double> w(static_cast<std::size_t>(n), 1.0);
  if (distribution == SplitDistribution::kZipf)
    for (int g = 0; g < n; ++g) w[static_cast<std::size_t>(g)] = 1.0 / std::pow(g + 1.0, s);
  return w;
}

// Largest-remainder apportionment of `total` over `w` (ties to the earlier index).
std::vector<std::int64_t> apportion(std::int64_t total, const std::vector<double>& w) {
  const double sum = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<std::int64_t> out(w.size());
  std::vector<std::pair<double, std::size_t>> rest;
  std::int64_t given = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double exact = static_cast<double>(total) * w[i] / sum;
    out[i] = static_cast<std::int64_t>(std::floor(exact));
    given += out[i];
    rest.emplace_back(exact - static_cast<double>(out[i]), i);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t j = 0; given < total && j < rest.size(); ++j, ++given) ++out[rest[j].second];
  return out;
}

}  // namespace

std::vector<std::int64_t> split_tokens(std::int64_t total, int groups, SplitDistribution distribution, double s) {
  if (groups < 1) throw CalibrationError("groups must be >= 1");
  if (total < 0) throw CalibrationError("total tokens must be >= 0");
  return apportion(total, weights(groups, distribution, s));
}

std::vector<std::int64_t> all_to_all_bytes(int ranks, std::int64_t peer_bytes, SplitDistribution distribution, double s,
                                           std::int64_t granule) {
  if (ranks < 1) throw CalibrationError("ranks must be >= 1");
  if (peer_bytes < 0 || granule < 1) throw CalibrationError("bytes must be >= 0");
  const auto r = static_cast<std::size_t>(ranks);
  const std::vector<double> w = weights(ranks, distribution, s);
  std::vector<std::int64_t> out(r * r, 0);
  if (distribution == SplitDistribution::kUniform) {
    std::fill(out.begin(), out.end(), peer_bytes);
    return out;
  }
  if (ranks == 1) return out;
  // Off-diagonal entries: sender a -> receiver d ∝ w[d]; scale so the mean entry is peer_bytes.
  double sum = 0;
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t d = 0; d < r; ++d)
      if (a != d) sum += w[d];
  const double scale = static_cast<double>(peer_bytes) * static_cast<double>(r * (r - 1)) / sum;
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t d = 0; d < r; ++d)
      if (a != d)
        out[a * r + d] = static_cast<std::int64_t>(std::llround(scale * w[d] / static_cast<double>(granule))) * granule;
  return out;
}

}  // namespace moesim::calibration
