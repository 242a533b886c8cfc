// Deterministic random streams (docs/design.md §4: each random component gets its own stream derived
// from the scenario seed). Streams are std::mt19937_64 seeded by SplitMix64(seed, stream id), so
// adding a component never perturbs the draws of another.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

namespace moesim::workloads {

using Rng = std::mt19937_64;

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// SplitMix64 as a generator (Steele, Lea & Flood, OOPSLA 2014; passes BigCrush): ~1 ns per 64
// bits, for inner loops that draw many variates per layer. Seeded from a stream once per use.
struct FastBits {
  using result_type = std::uint64_t;
  std::uint64_t state = 0;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~std::uint64_t{0}; }
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

// A uniform double in [0, 1) from the top 53 bits of one draw of any 64-bit generator.
template <class G>
double unit_uniform(G& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

// A stream named by a short label ("arrivals", "routing", ...), FNV-1a hashed.
inline Rng make_stream(std::uint64_t seed, std::string_view label) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : label) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  return Rng(splitmix64(seed ^ splitmix64(h)));
}

}  // namespace moesim::workloads
