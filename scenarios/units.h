// Units at the edge: parse "2us", "400Gbps", "80GiB", "400/s" into plain doubles (docs/design.md §5).
//
// Each parser takes the whole text of one value, allows spaces between the number and the unit,
// and throws UnitError for anything else: an empty value, a missing or unknown unit (the message
// lists the accepted ones), a negative number, NaN, infinity, overflow or trailing garbage. Zero is
// accepted; callers that need a positive value check that themselves. UnitError messages carry no
// position or key; the scenario loader prefixes both.
//
//   duration   -> nanoseconds      ns, us, ms, s, min, h          (a unit is required)
//   bandwidth  -> bytes per second bps Kbps Mbps Gbps Tbps, b/s .. Tb/s (bits, decimal: 400Gbps =
//                                  50e9 B/s); B/s KB/s MB/s GB/s TB/s, Bps .. TBps (decimal
//                                  bytes); KiB/s MiB/s GiB/s TiB/s (binary bytes)
//   bytes      -> bytes            B KB MB GB TB (decimal), KiB MiB GiB TiB (binary)
//   rate       -> events per second /s /ms /us /min /h; a bare number means per second
// A lowercase 'k' prefix is accepted wherever 'K' is (kbps, kB/s, kB).
#pragma once

#include <stdexcept>
#include <string_view>

namespace moesim::scenarios {

class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

double parse_duration_ns(std::string_view text);
double parse_bandwidth_bytes_per_s(std::string_view text);
double parse_bytes(std::string_view text);
double parse_rate_per_s(std::string_view text);

}  // namespace moesim::scenarios
