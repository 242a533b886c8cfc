// The byte counts and bandwidths of one all-to-all-v pattern (kernels/all_to_all_bench.h), as
// the capture writes them into its rows.
//
// Bandwidths follow nccl-tests' definitions (its alltoall test and docs/PERFORMANCE.md), so
// that figures compare with what nccl-tests prints:
//   algbw = S / t, with S the bytes of one rank's send buffer, its own chunk included
//           (nccl-tests' "size": count × type size, the whole buffer);
//   busbw = algbw × (n − 1) / n, the bytes that really cross the fabric per rank.
// For a non-uniform pattern (which nccl-tests does not run) S is the busiest rank's buffer, the
// larger of what it sends and what it receives.
#pragma once

#include <cstdint>

#include "kernels/all_to_all_bench.h"

namespace moesim::calibration {

struct AllToAllVolumes {
  std::int64_t max_send = 0;    // the busiest sender's bytes to other ranks
  std::int64_t max_recv = 0;    // the busiest receiver's bytes from other ranks
  std::int64_t total = 0;       // every off-diagonal byte
  std::int64_t max_buffer = 0;  // the largest send or receive buffer of a rank, own chunk included
};

AllToAllVolumes all_to_all_volumes(const kernels::AllToAllPattern& pattern);

struct AllToAllBandwidth {
  double algbw_gbs = 0;  // GB/s (1e9 bytes per second)
  double busbw_gbs = 0;
};

// Throws nothing; `time_ns` must be positive.
AllToAllBandwidth all_to_all_bandwidth(const kernels::AllToAllPattern& pattern, double time_ns);

}  // namespace moesim::calibration
