// Network fidelity: how long a set of concurrent flows takes on the fabric. A registry by name:
//   analytic  every link must carry its load: time = max over links of load / capacity
//             (a lower bound on any schedule; exact when the busiest links are busy throughout)
//   flow      max-min fair sharing of link capacity among the flows along their ECMP routes,
//             progressive filling, re-solved as flows finish (never faster than analytic)
// run_schedule() times a whole Schedule with one of them (latency and message terms included).
#pragma once

#include <string_view>
#include <vector>

#include "topology/cluster.h"
#include "topology/comm.h"

namespace moesim::topology {

class NetworkFidelity {
 public:
  virtual ~NetworkFidelity() = default;
  virtual std::string_view name() const = 0;
  // Whether a stage's time is its busiest link's load alone (analytic), which the closed forms
  // of a preset fabric compute without building a schedule (topology/a2a_closed_form.h).
  virtual bool closed_form() const { return false; }
  // Bandwidth-limited time of one stage, in ns. Adds each link's bytes to `link_bytes`
  // (sized num_links()), which the caller zeroes.
  virtual double transfer_ns(const Cluster& cluster, const std::vector<Flow>& flows,
                             std::vector<double>& link_bytes) const = 0;
};

struct FidelityInfo {
  std::string_view name;
  std::string_view description;
};
std::vector<FidelityInfo> network_fidelities();
// Throws TopologyError naming the valid fidelities. Names are resolved once, where they are read.
const NetworkFidelity& find_fidelity(std::string_view name);
const NetworkFidelity& analytic_fidelity();  // the default everywhere
const NetworkFidelity& flow_fidelity();

CommResult run_schedule(const Cluster& cluster, const Schedule& schedule, const NetworkFidelity& fidelity);

// Fills the max_* and bottleneck_device fields of `r` from r.link_bytes and r.bottleneck_link.
void summarise_links(const Cluster& cluster, CommResult& r);
// Fills only bottleneck_device (the device behind r.bottleneck_link).
void bottleneck_device(const Cluster& cluster, CommResult& r);

}  // namespace moesim::topology
