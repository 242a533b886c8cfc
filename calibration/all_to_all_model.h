// The all-to-all cost that calibration fits and checks: topology's analytic `direct` all-to-all
// inside one scale-up domain (topology/a2a_closed_form.h), where every rank has one scale-up
// port per direction and the switch is non-blocking:
//
//   time = scaleup_latency + max(busiest sender's bytes, busiest receiver's bytes)
//                            / (scaleup line rate × scaleup_efficiency)
//
// with a rank's own chunk excluded (it never leaves the device). The fitted latency and
// efficiency become the profile's network.scaleup_latency and network.scaleup_efficiency, which
// scenarios on hgx and generic clusters use as their defaults.
#pragma once

#include <algorithm>

namespace moesim::calibration {

struct AllToAllLink {
  double line_bytes_per_s = 0;
  double efficiency = 1;
  double latency_ns = 0;
};

inline double all_to_all_time_ns(const AllToAllLink& link, double max_send_bytes, double max_recv_bytes) {
  return link.latency_ns + std::max(max_send_bytes, max_recv_bytes) / (link.line_bytes_per_s * link.efficiency) * 1e9;
}

}  // namespace moesim::calibration
