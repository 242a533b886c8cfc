#include "calibration/all_to_all_volumes.h"

#include <algorithm>

namespace moesim::calibration {

AllToAllVolumes all_to_all_volumes(const kernels::AllToAllPattern& p) {
  AllToAllVolumes v;
  const auto r = static_cast<std::size_t>(p.ranks);
  for (std::size_t a = 0; a < r; ++a) {
    std::int64_t send = 0, recv = 0, buffer_out = 0, buffer_in = 0;
    for (std::size_t b = 0; b < r; ++b) {
      buffer_out += p.bytes[a * r + b];
      buffer_in += p.bytes[b * r + a];
      if (a != b) {
        send += p.bytes[a * r + b];
        recv += p.bytes[b * r + a];
      }
    }
    v.max_send = std::max(v.max_send, send);
    v.max_recv = std::max(v.max_recv, recv);
    v.max_buffer = std::max({v.max_buffer, buffer_out, buffer_in});
    v.total += send;
  }
  return v;
}

AllToAllBandwidth all_to_all_bandwidth(const kernels::AllToAllPattern& p, double time_ns) {
  const double algbw = static_cast<double>(all_to_all_volumes(p).max_buffer) / time_ns;  // bytes/ns = GB/s
  const double n = p.ranks;
  return {algbw, n > 0 ? algbw * (n - 1) / n : 0};
}

}  // namespace moesim::calibration
