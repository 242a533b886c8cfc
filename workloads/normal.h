// Standard normal variates by the ziggurat method (Marsaglia & Tsang, "The Ziggurat Method for
// Generating Random Variables", J. Stat. Software 5(8), 2000), 256 layers: one 64-bit draw, a
// table look-up and a comparison for 98.8 % of the variates; the wedges fall back to one exp()
// and the tail beyond r = 3.654 to Marsaglia's exponential method. Exact for the normal law up to
// the 2^-52 resolution of the uniform it scales. The tables are built once, from libm only, so
// every build on the same libm draws the same bits.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "workloads/rng.h"

namespace moesim::workloads {

// The 256 layers: x[i] the right edge of layer i (x[0]: the base layer's width, tail included;
// x[256] = 0), f[i] the unnormalised density there.
struct ZigguratTable {
  static constexpr int kLayers = 256;
  std::array<double, kLayers + 1> x{}, f{};
};
const ZigguratTable& ziggurat_table();  // built on first use, immutable after

// The rest of a draw whose first 64 bits `first` missed its layer's rectangle.
double standard_normal_after(FastBits& bits, std::uint64_t first);

// One variate: the layer from the low 8 bits, a signed 53-bit fraction of its width from the
// high bits; inside the rectangle under the curve (98.8 %) that is the variate.
inline double standard_normal(FastBits& bits, const ZigguratTable& z) {
  const std::uint64_t b = bits();
  const auto i = static_cast<std::size_t>(b & (ZigguratTable::kLayers - 1));
  const double x = static_cast<double>(static_cast<std::int64_t>(b) >> 11) * 0x1.0p-52 * z.x[i];
  return std::fabs(x) < z.x[i + 1] ? x : standard_normal_after(bits, b);
}
inline double standard_normal(FastBits& bits) { return standard_normal(bits, ziggurat_table()); }

}  // namespace moesim::workloads
