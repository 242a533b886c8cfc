#include "sim/stream_timeline.h"

#include <algorithm>

namespace moesim::sim {

StreamTimeline::StreamTimeline(int ranks)
    : compute_free_(static_cast<std::size_t>(ranks), 0.0),
      comm_free_(static_cast<std::size_t>(ranks), 0.0),
      busy_(static_cast<std::size_t>(ranks), 0.0) {}

void StreamTimeline::reset() {
  std::fill(compute_free_.begin(), compute_free_.end(), 0.0);
  std::fill(comm_free_.begin(), comm_free_.end(), 0.0);
  std::fill(busy_.begin(), busy_.end(), 0.0);
}

void StreamTimeline::compute(std::span<const double> ready, std::span<const double> duration, std::span<double> end) {
  for (std::size_t r = 0; r < compute_free_.size(); ++r) {
    const double start = std::max(compute_free_[r], ready[r]);
    compute_free_[r] = start + duration[r];
    busy_[r] += duration[r];
    end[r] = compute_free_[r];
  }
}

void StreamTimeline::compute_uniform(std::span<const double> ready, double duration, std::span<double> end) {
  for (std::size_t r = 0; r < compute_free_.size(); ++r) {
    const double start = std::max(compute_free_[r], ready[r]);
    compute_free_[r] = start + duration;
    busy_[r] += duration;
    end[r] = compute_free_[r];
  }
}

double StreamTimeline::collective(std::span<const double> ready, double duration) {
  double start = 0;
  for (std::size_t r = 0; r < comm_free_.size(); ++r) start = std::max({start, comm_free_[r], ready[r]});
  const double end = start + duration;
  std::fill(comm_free_.begin(), comm_free_.end(), end);
  return end;
}

double StreamTimeline::finish() const {
  double f = 0;
  for (std::size_t r = 0; r < compute_free_.size(); ++r) f = std::max({f, compute_free_[r], comm_free_[r]});
  return f;
}

}  // namespace moesim::sim
