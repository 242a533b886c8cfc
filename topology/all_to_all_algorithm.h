// The all-to-all algorithms of MoE dispatch and combine (topology/all_to_all.h), one
// implementation each behind AllToAllAlgorithm, and their registry by name:
//   direct        every rank sends to every rank on the shortest route, once per destination rank
//   hierarchical  DeepEP normal: the network once per destination node, then NVLink fan-out
//   low-latency   DeepEP low-latency: one message per token-expert pair, straight to the expert
// A scenario or a command-line flag names an algorithm and find_all_to_all() resolves the name
// once; below that the implementation travels (AllToAllOptions::algorithm) and is asked, never
// compared by name. Each implementation gives what costing an all-to-all needs of it (the flows
// of its transfer schedule, its closed-form and aggregated per-link volumes, its fixed kernel
// cost) and the facts the simulator reads. Every call costs a whole all-to-all: the virtual
// dispatch happens once per collective, never per token or pair.
#pragma once

#include <string_view>
#include <vector>

#include "topology/comm.h"

namespace moesim::topology {

class Cluster;
struct ClusterConfig;
struct RankLayout;
struct TrafficView;
struct AggregatedTraffic;
struct A2aVolumes;         // topology/a2a_closed_form.h
class AggregatedAllToAll;  // topology/aggregated_all_to_all.h
struct AllToAllOptions;    // topology/all_to_all.h

class AllToAllAlgorithm {
 public:
  virtual ~AllToAllAlgorithm() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;

  // DeepEP's low-latency kernels: every token-expert pair travels as its own message (the
  // traffic's token-expert view, a per-message term), by a send and a receive kernel on the
  // compute stream that hold no SMs while the data is in flight and whose launches are the
  // kernels' fixed cost; they alone may send the pairs inside a scale-up domain over the
  // network (MoeCommConfig::ll_network_only).
  virtual bool low_latency() const { return false; }
  // Relays each token from one rank per destination node over the scale-up fabric: its costing
  // needs each sender's traffic per node, and it cannot send every pair over the network.
  virtual bool forwards() const { return false; }
  // Times each byte crosses HBM: read at its sender and written at its receiver, and once more
  // each way at a forwarder.
  virtual int hbm_passes() const { return 2; }
  // Kernels one dispatch or one combine launches.
  virtual int launches() const { return 1; }

  // The flows of its transfer schedule (one pipelined stage) in dispatch orientation, `scale`
  // applied; all_to_all_schedule() checks the inputs first and reverses the flows for combine.
  virtual void add_flows(const Cluster& cluster, const RankLayout& layout, const TrafficView& traffic,
                         const AllToAllOptions& options, std::vector<Flow>& flows) const = 0;
  // The per-rank and per-leaf volumes of the closed form (topology/a2a_closed_form.h) from the
  // full traffic, into `volumes` (reset to the layout's shape).
  virtual void closed_form_volumes(const Cluster& cluster, const RankLayout& layout, const TrafficView& traffic,
                                   const AllToAllOptions& options, A2aVolumes& volumes) const = 0;
  // The same volumes from traffic margins (topology/aggregated_all_to_all.h), whose shape `a2a`
  // has checked.
  virtual void aggregated_volumes(const AggregatedAllToAll& a2a, const AggregatedTraffic& traffic,
                                  const AllToAllOptions& options, A2aVolumes& volumes) const = 0;
  // The kernels' fixed cost of one all-to-all over `ranks` ranks (topology/a2a_fixed.h).
  virtual double fixed_ns(const ClusterConfig& config, const AllToAllOptions& options, int ranks) const;
};

const AllToAllAlgorithm& direct_all_to_all();
const AllToAllAlgorithm& hierarchical_all_to_all();
const AllToAllAlgorithm& low_latency_all_to_all();

// Every algorithm, in the order `moesim list` shows them.
const std::vector<const AllToAllAlgorithm*>& all_to_all_registry();
// The algorithm of that name. Throws TopologyError "unknown all-to-all algorithm '<name>'
// (valid: direct, hierarchical, low-latency)".
const AllToAllAlgorithm& find_all_to_all(std::string_view name);

}  // namespace moesim::topology
