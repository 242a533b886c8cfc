// Writes a run's op-level trace as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev)
// and chrome://tracing load: one process per traced rank ("prefill/0 rank 3"), one thread per
// stream (compute, communication), a complete event per op with its layer and micro-batch, and
// flow arrows from each dispatch to the expert GEMM it feeds and from that GEMM to its combine.
#pragma once

#include <ostream>

#include "sim/simulation.h"

namespace moesim::tools {

void write_chrome_trace(std::ostream& out, const sim::SimulationResult& result);

}  // namespace moesim::tools
