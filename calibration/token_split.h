// Deterministic token and byte splits for the capture suites: how many rows each expert of a
// grouped GEMM gets, and how many bytes each rank sends each peer in an all-to-all.
//
//   uniform  equal shares (the remainder goes one each to the first groups)
//   zipf     group g (0-based) gets a share proportional to 1 / (g + 1)^s: the skew a hot expert
//            or a hot receiving rank causes (s = 0 is uniform)
//
// Shares are turned into integers by largest remainder (Hamilton's method), so the parts sum to
// the total exactly and the same arguments always give the same split: no random draw.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "calibration/capture_names.h"

namespace moesim::calibration {

// Throws CalibrationError for groups < 1, total < 0 or s < 0.
std::vector<std::int64_t> split_tokens(std::int64_t total, int groups, SplitDistribution distribution, double s);

// ranks × ranks bytes (row = sender). uniform: every entry, the diagonal included, is
// `peer_bytes` (so the library's all-to-all collective applies). zipf: receiver d's share of
// every sender's traffic is ∝ 1 / (d + 1)^s over all ranks, the sender's own share is dropped
// (nothing to itself), and entries are scaled so that the mean off-diagonal entry is
// `peer_bytes`; entries are multiples of `granule` bytes.
std::vector<std::int64_t> all_to_all_bytes(int ranks, std::int64_t peer_bytes, SplitDistribution distribution, double s,
                                           std::int64_t granule = 256);

}  // namespace moesim::calibration
