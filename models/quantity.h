// Quantities with units in model and hardware files: "80GiB", "3.35TB/s", "400Gbps", "989TFLOPS".
//
// Each parser takes the whole text of one value (spaces allowed between number and unit) and
// returns a plain double in base units, or throws std::invalid_argument whose message lists the
// accepted units ("expected a size with a unit (B, KB, ...), got 'x'"); the YAML field reader adds
// the position. Values are exact where the decimal text is: "3.35TB/s" is the double nearest to
// 3.35e12 (the number is parsed with its decimal exponent), binary prefixes are exact powers of
// two, and bits divide by 8. Negative, NaN and infinite values are rejected; zero is accepted.
//
//   bytes       B KB MB GB TB (decimal), KiB MiB GiB TiB (binary)
//   bandwidth   B/s KB/s MB/s GB/s TB/s, KiB/s .. TiB/s, bps Kbps Mbps Gbps Tbps (bits)
//   flops       FLOPS KFLOPS MFLOPS GFLOPS TFLOPS PFLOPS (also spelled TFLOP/s, ...); integer
//               rates as OPS GOPS TOPS POPS
//   power       W kW MW
#pragma once

#include <string_view>

namespace moesim::models {

double parse_bytes(std::string_view text);
double parse_bandwidth_bytes_per_s(std::string_view text);
double parse_flops_per_s(std::string_view text);
double parse_power_w(std::string_view text);

}  // namespace moesim::models
