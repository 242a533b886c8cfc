// Internal to workloads/: binomial inversions four at a time (BinomialBatch's small-mean draws).
//
// out[i] = binomial_inversion(n[i], p[i], u[i]) (workloads/binomial.h) for every i, with the
// inversion's own operations in the same order, four lanes in lockstep: a lane whose walk ended
// adds nothing more, exactly where the one-at-a-time loop would have stopped. The lanes are GCC
// vector types, compiled for AVX2 when the processor has it and for SSE2 otherwise; both execute
// the same IEEE operations (no fused multiply-add), so every machine gets the same counts.
// Requires 0 < p[i] <= 1/2 and 1 <= n[i] <= kInversionMaxN.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace moesim::workloads {

// 1 / x for x < kInversionReciprocals (entry 0 unused): the inversion walk's first steps multiply
// by them instead of dividing (binomial.cpp), and so must its lanes.
inline constexpr int kInversionReciprocals = 64;
const std::array<double, kInversionReciprocals>& inversion_reciprocals();

// kBest: AVX2 where the processor has it; kBaseline: the build's baseline instruction set (for
// checking that both give the same counts).
enum class Lanes { kBest, kBaseline };
void binomial_inversions(std::span<const std::int64_t> n, std::span<const double> p, std::span<const double> u,
                         std::span<std::int64_t> out, Lanes lanes = Lanes::kBest);

}  // namespace moesim::workloads
