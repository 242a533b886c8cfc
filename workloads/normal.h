// Standard normal variates by the ziggurat method (Marsaglia & Tsang, "The Ziggurat Method for
// Generating Random Variables", J. Stat. Software 5(8), 2000), 256 layers: one 64-bit draw, a
// table look-up and a comparison for 98.8 % of the variates; the wedges fall back to one exp()
// and the tail beyond r = 3.654 to Marsaglia's exponential method. Exact for the normal law up to
// the 2^-52 resolution of the uniform it scales. The tables are built once, from libm only, so
// every build on the same libm draws the same bits.
#pragma once

#include "workloads/rng.h"

namespace moesim::workloads {

double standard_normal(FastBits& bits);

}  // namespace moesim::workloads
