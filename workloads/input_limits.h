// Input limits of the workload readers and generators (docs/robustness.md): sizes beyond these
// are refused with a one-line error before anything is allocated for them, instead of
// overflowing 64-bit nanoseconds or exhausting memory.
//
//   requests per run            100 000 000  (a RequestRecord each)
//   tokens per prompt / output  2^25 = 33 554 432 (above every context window modelled, 10M)
//   arrival times               |t| <= 4e18 ns (about 126 years, so differences fit in int64)
#pragma once

#include <cstdint>

namespace moesim::workloads {

inline constexpr std::int64_t kMaxRequests = 100'000'000;
inline constexpr std::int64_t kMaxRequestTokens = std::int64_t{1} << 25;
inline constexpr double kMaxArrivalNs = 4e18;

}  // namespace moesim::workloads
