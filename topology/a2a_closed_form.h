// Internal: the analytic fidelity of all-to-all on a preset fabric in closed form. Instead of
// routing every pair, it sums per-rank scale-up and NIC send/receive volumes and per-leaf
// up/down volumes (the links that can bound a preset fabric: scale-up switches and spines are
// non-blocking inside, host links run at twice the NIC), then takes max over those links of
// load / capacity, plus the longest route latency and the per-message term. Equal to the
// analytic fidelity on the routed schedule (tested), in O(ranks²) simple arithmetic.
#pragma once

#include "topology/all_to_all.h"
#include "topology/rank_layout.h"

namespace moesim::topology {

CommResult all_to_all_closed_form(const Cluster& cluster, const RankLayout& layout, TrafficView traffic,
                                  const AllToAllOptions& options);

}  // namespace moesim::topology
