// Internal to topology/ (but for A2aVolumes, which callers of AggregatedAllToAll keep as scratch):
// the analytic fidelity of all-to-all on a preset fabric in closed form. Instead of
// routing every pair, it sums per-rank scale-up and NIC send/receive volumes and per-leaf
// up/down volumes (the links that can bound a preset fabric: scale-up switches and spines are
// non-blocking inside, host links run at twice the NIC), then takes max over those links of
// load / capacity, plus the longest route latency and the per-message term. Equal to the
// analytic fidelity on the routed schedule (tested), in O(ranks²) simple arithmetic.
#pragma once

#include "topology/all_to_all.h"
#include "topology/rank_layout.h"

#include <vector>

namespace moesim::topology {

// Per-rank and per-leaf volumes in bytes, dispatch orientation: what a preset fabric's bounding
// links (scale-up port, host link and NIC of each device, leaf up- and down-links) carry.
// Reusable: reset() zeroes it for another call without giving its storage back.
struct A2aVolumes {
  A2aVolumes() = default;
  A2aVolumes(int ranks, int leaves) { reset(ranks, leaves); }
  void reset(int ranks, int leaves);
  std::vector<double> up_send, up_recv, out_send, out_recv, messages, messages_in, leaf_up, leaf_down;
  bool any_up = false, any_out = false, any_cross_leaf = false;
  std::vector<double> work;  // scratch of the functions that fill the volumes (its contents are theirs)
  // Adds `other`'s volumes (of the same shape) `times` over, e.g. to cost the link loads of many
  // collectives at once: a link's load is linear in the volumes.
  void add(const A2aVolumes& other, double times = 1.0);
  // Copies `other`'s volumes, not its scratch, into this one's storage.
  void copy_volumes(const A2aVolumes& other);
};

// The result of an all-to-all whose volumes are `v`: every bounding link's load / capacity, the
// worst of them, the longest route latency and the busiest sender's (or, for combine,
// receiver's) per-message term.
CommResult closed_form_result(const Cluster& cluster, const RankLayout& layout, const A2aVolumes& v,
                              const AllToAllOptions& options);
// The same into `out`, reusing its storage: a result this function filled before is cleared
// through its loaded links alone instead of over every link of the fabric.
void closed_form_result(const Cluster& cluster, const RankLayout& layout, const A2aVolumes& v,
                        const AllToAllOptions& options, CommResult& out);

// closed_form_result's timing alone (duration, transfer, latency and message terms, equal to its)
// without its per-link bookkeeping: link_bytes and loaded_links are left empty and the bottleneck
// unset. Where bounding links are shared between ranks (RankLayout::exclusive_links false) it is
// closed_form_result.
void closed_form_timing(const Cluster& cluster, const RankLayout& layout, const A2aVolumes& v,
                        const AllToAllOptions& options, CommResult& out);

// The building blocks of the algorithms' closed forms (AllToAllAlgorithm::closed_form_volumes).
// Which message counts the pairs' closed form takes: none (bulk or sized messages), each sender's
// (what low-latency dispatch reads) or each receiver's (what low-latency combine reads).
enum class PairMessages { kNone, kSent, kReceived };
// Every entry of `m` on the shortest route (direct, low-latency), into `v` (reset).
void closed_form_pairs(const RankLayout& layout, const TrafficMatrix& m, double scale, PairMessages count,
                       A2aVolumes& v);
// The network hop once per (token, node) to the same-rail forwarder, then the scale-up fan-out.
void closed_form_hierarchical(const Cluster& cluster, const RankLayout& layout, const TrafficView& traffic,
                              double scale, A2aVolumes& v);

CommResult all_to_all_closed_form(const Cluster& cluster, const RankLayout& layout, TrafficView traffic,
                                  const AllToAllOptions& options);

}  // namespace moesim::topology
