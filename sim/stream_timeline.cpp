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

void StreamTimeline::trace_into(TraceRecorder* recorder, int pool, int instance, std::int64_t step_start_ns,
                                int rank_offset) {
  rank_offset_ = rank_offset;
  recorder_ = recorder;
  base_ = TraceEvent{};
  base_.pool = static_cast<std::int16_t>(pool);
  base_.instance = static_cast<std::int16_t>(instance);
  offset_ns_ = step_start_ns;
}

void StreamTimeline::record(int rank, bool comm, OpLabel label, double start, double duration) {
  rank += rank_offset_;
  if (duration <= 0 || !recorder_->wants_rank(rank)) return;
  TraceEvent e = base_;
  e.rank = rank;
  e.comm = comm;
  e.name = label.name;
  e.layer = label.layer;
  e.micro_batch = static_cast<std::int8_t>(label.micro_batch);
  e.start_ns = offset_ns_ + static_cast<std::int64_t>(start);
  e.duration_ns = static_cast<std::int64_t>(duration);
  recorder_->add(e);
}

void StreamTimeline::compute(std::span<const double> ready, std::span<const double> duration, std::span<double> end,
                             OpLabel label) {
  const std::size_t n = compute_free_.size();
  double* free = compute_free_.data();
  double* busy = busy_.data();
  if (recorder_) {
    for (std::size_t r = 0; r < n; ++r) {
      const double start = std::max(free[r], ready[r]), d = duration[r];  // `end` may alias `duration`
      free[r] = start + d;
      busy[r] += d;
      end[r] = free[r];
      record(static_cast<int>(r), false, label, start, d);
    }
    return;
  }
  for (std::size_t r = 0; r < n; ++r) {  // the same, without a recorder to ask per rank
    const double start = std::max(free[r], ready[r]), d = duration[r];
    const double finish = start + d;
    free[r] = finish;
    busy[r] += d;
    end[r] = finish;
  }
}

double StreamTimeline::collective(std::span<const double> ready, double duration, OpLabel label) {
  double start = 0;
  for (std::size_t r = 0; r < comm_free_.size(); ++r) start = std::max({start, comm_free_[r], ready[r]});
  const double end = start + duration;
  std::fill(comm_free_.begin(), comm_free_.end(), end);
  if (recorder_)
    for (std::size_t r = 0; r < comm_free_.size(); ++r) record(static_cast<int>(r), true, label, start, duration);
  return end;
}

void StreamTimeline::group_collective(std::span<const double> ready, int group, std::span<const double> duration,
                                      std::span<double> end, OpLabel label) {
  const std::size_t n = compute_free_.size(), g = static_cast<std::size_t>(group);
  for (std::size_t first = 0; first < n; first += g) {
    double start = 0;
    for (std::size_t r = first; r < first + g; ++r)
      start = std::max({start, ready[r], compute_free_[r], comm_free_[r]});
    const double d = duration[first / g];
    for (std::size_t r = first; r < first + g; ++r) {
      compute_free_[r] = comm_free_[r] = end[r] = start + d;
      if (recorder_) record(static_cast<int>(r), true, label, start, d);
    }
  }
}

double StreamTimeline::finish() const {
  double f = 0;
  for (std::size_t r = 0; r < compute_free_.size(); ++r) f = std::max({f, compute_free_[r], comm_free_[r]});
  return f;
}

}  // namespace moesim::sim
