// What every collective returns, and the transfer schedule the collectives are built from.
//
// A collective is planned as a Schedule: stages run one after another; the flows of a stage run
// concurrently (a pipelined algorithm, such as DeepEP's RDMA-then-NVLink forwarding, puts both
// hops in one stage). A NetworkFidelity (topology/fidelity.h) times each stage's flows; the
// runner adds, per stage, the longest route latency (times `latency_hops`) and the per-message
// term (messages crossing the scale-out network / the NIC message rate, for the busiest sender).
#pragma once

#include <string>
#include <vector>

namespace moesim::topology {

struct Flow {
  int src = -1;  // device ids
  int dst = -1;
  double bytes = 0;
  double messages = 0;   // separate messages (low-latency mode); 0 for bulk transfers
  bool network = false;  // routed over the scale-out network even inside a scale-up domain
};

struct Stage {
  std::vector<Flow> flows;
  int repeat = 1;           // identical stages in a row (the steps of a ring)
  double latency_hops = 1;  // route latencies a stage pays (2 x tree depth for a pipelined tree)
};

using Schedule = std::vector<Stage>;

struct CommResult {
  double duration_ns = 0;
  double transfer_ns = 0;          // bandwidth-limited part
  double latency_ns = 0;           // route latencies
  double message_ns = 0;           // per-message overheads
  double fixed_ns = 0;             // the kernel's launch, signalling and polling (all-to-all: topology/a2a_fixed.h)
  std::vector<double> link_bytes;  // bytes carried by each link id over the whole collective
  // When `links_listed`, the ids of every link with non-zero link_bytes, each once (the closed
  // forms load a few hundred of a large fabric's links); otherwise scan link_bytes.
  std::vector<int> loaded_links;
  bool links_listed = false;
  int bottleneck_link = -1;       // the most utilised link of the costliest stage, -1 if idle
  int bottleneck_device = -1;     // the device that link belongs to, -1 for a switch link
  double max_scaleup_bytes = 0;   // largest load on one scale-up link
  double max_scaleout_bytes = 0;  // largest load on one NIC link
};

}  // namespace moesim::topology
