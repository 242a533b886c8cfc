#include "workloads/normal.h"

#include <cmath>
#include <cstdint>
#include <numbers>

namespace moesim::workloads {
namespace {

constexpr int kLayers = ZigguratTable::kLayers;
// The right edge of the base layer for 256 layers (Marsaglia & Tsang 2000, §3); each layer then
// has the area v of the base layer (rectangle to r plus the tail), and the top layer closes at 0
// (NormalZiggurat.FrequenciesMatchPhi would see it otherwise).
constexpr double kR = 3.6541528853610088;

double density(double x) { return std::exp(-0.5 * x * x); }  // unnormalised

// Out of line, so that ziggurat_table() after the first call is a guard test and a return.
[[gnu::noinline]] ZigguratTable build() {
  ZigguratTable z;
  const double v = kR * density(kR) + std::sqrt(std::numbers::pi / 2) * std::erfc(kR / std::sqrt(2.0));
  z.x[0] = v / density(kR);  // a uniform over it lands in the tail with the tail's share of the base area
  z.x[1] = kR;
  for (int i = 1; i < kLayers - 1; ++i) z.x[i + 1] = std::sqrt(-2 * std::log(density(z.x[i]) + v / z.x[i]));
  z.x[kLayers] = 0;
  for (int i = 0; i <= kLayers; ++i) z.f[static_cast<std::size_t>(i)] = density(z.x[static_cast<std::size_t>(i)]);
  z.f[0] = 0;  // the base layer starts at the axis
  return z;
}

// (0, 1]: never 0, for a logarithm.
double open_uniform(FastBits& bits) { return static_cast<double>((bits() >> 11) + 1) * 0x1.0p-53; }

}  // namespace

const ZigguratTable& ziggurat_table() {
  static const ZigguratTable z = build();
  return z;
}

double standard_normal_after(FastBits& bits, std::uint64_t b) {
  const ZigguratTable& z = ziggurat_table();
  for (;;) {
    const auto i = static_cast<std::size_t>(b & (kLayers - 1));
    const double u = static_cast<double>(static_cast<std::int64_t>(b) >> 11) * 0x1.0p-52;
    const double x = u * z.x[i];
    if (std::fabs(x) < z.x[i + 1]) return x;  // inside the layer's rectangle under the curve
    if (i == 0) {
      // The tail beyond r: x = r + e1 / r with e1, e2 exponential, accepted when 2 e2 >= (e1 / r)^2.
      for (;;) {
        const double t = -std::log(open_uniform(bits)) / kR;
        const double e = -std::log(open_uniform(bits));
        if (e + e >= t * t) return u < 0 ? -(kR + t) : kR + t;
      }
    }
    // The wedge between the rectangle and the curve: accept under the density.
    const double y = z.f[i] + unit_uniform(bits) * (z.f[i + 1] - z.f[i]);
    if (y < density(x)) return x;
    b = bits();  // a fresh draw
  }
}

}  // namespace moesim::workloads
