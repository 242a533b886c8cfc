// `moesim trace stats FILE`: prints a routing trace's per-layer expert load, imbalance,
// co-selection and step-to-step stability (models/routing_trace_stats.h).
#pragma once

#include <string>

namespace moesim::tools {

// `loads`: experts listed per layer in the load table, hottest first (0 = all).
int print_trace_stats(const std::string& path, int loads);

}  // namespace moesim::tools
