// Units at the edge: the one parser of "2us", "400Gbps", "80GiB", "400/s", "989TFLOPS", "700W"
// for every YAML input (scenarios, sweeps, model files, hardware profiles, fabrics) and the
// command line (docs/design.md §5).
//
// Each parser takes the whole text of one value, allows spaces between the number and the unit,
// and throws UnitError for anything else: an empty value, a missing or unknown unit (the message
// lists the accepted ones), a negative number, NaN, infinity, overflow or trailing garbage. Zero is
// accepted; callers that need a positive value check that themselves. UnitError messages carry no
// position or key; the YAML reader (models/yaml_reader.h) prefixes both.
//
// Values are exact where the decimal text is: the unit's decimal prefix joins the number's
// exponent before the number is converted, so "3.35TB/s" is the double nearest to 3.35e12; binary
// prefixes are exact powers of two, and bits divide by 8.
//
//   duration   -> nanoseconds      ns, us, ms, s, min, h          (a unit is required)
//   bandwidth  -> bytes per second bps Kbps Mbps Gbps Tbps, b/s .. Tb/s (bits, decimal: 400Gbps =
//                                  50e9 B/s); B/s KB/s MB/s GB/s TB/s, Bps .. TBps (decimal
//                                  bytes); KiB/s MiB/s GiB/s TiB/s (binary bytes)
//   bytes      -> bytes            B KB MB GB TB (decimal), KiB MiB GiB TiB (binary)
//   rate       -> events per second /s /ms /us /min /h; a bare number means per second
//   flops      -> FLOP per second  FLOPS KFLOPS .. PFLOPS (also FLOP/s .. PFLOP/s); integer
//                                  rates as OPS GOPS TOPS POPS
//   power      -> watts            W kW MW
// A lowercase 'k' prefix is accepted wherever 'K' is (kbps, kB/s, kB, kW) and the other way round.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "models/error.h"

namespace moesim::models {

class UnitError : public Error {
 public:
  explicit UnitError(const std::string& what, std::string position = {})
      : Error(ErrorKind::kUnit, what, std::move(position)) {}
};

double parse_duration_ns(std::string_view text);
double parse_bandwidth_bytes_per_s(std::string_view text);
double parse_bytes(std::string_view text);
double parse_rate_per_s(std::string_view text);
double parse_flops_per_s(std::string_view text);
double parse_power_w(std::string_view text);

}  // namespace moesim::models
