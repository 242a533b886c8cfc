#include "sim/stream_timeline.h"

#include <algorithm>
#include <iterator>
#include <limits>

#include "sim/lane_max.h"
#include "topology/avx2_clones.h"

namespace moesim::sim {
namespace {

// N ops in a row on every rank that nothing slows, each ready when the one before it on the rank
// ends (the first when `ready` is), in one pass over the ranks: the loop vectorises (and runs on
// AVX2 where the CPU has it, bit-identically: topology/avx2_clones.h). Op k+1 starts when op k
// ends, which is when the stream frees, so the chain is the same arithmetic, rank by rank, as its
// ops one at a time. Each iteration reads and writes index r only, so `end` aliasing `ready` or a
// duration carries nothing between iterations.
template <int N>
[[gnu::always_inline]] inline void unslowed_chain_body(std::size_t n, const double* ready,
                                                       const double* const* duration, double* end, double* free,
                                                       double* busy) {
#pragma GCC ivdep
  for (std::size_t r = 0; r < n; ++r) {
    double start = ready[r] > free[r] ? ready[r] : free[r];
    double b = busy[r];
    for (int k = 0; k < N; ++k) {
      const double finish = start + duration[k][r];
      b += finish - start;
      start = finish;
    }
    free[r] = start;
    busy[r] = b;
    end[r] = start;
  }
}
MOESIM_AVX2_CLONES void unslowed_ops(std::size_t n, const double* ready, const double* duration, double* end,
                                     double* free, double* busy) {
  const double* one[1] = {duration};
  unslowed_chain_body<1>(n, ready, one, end, free, busy);
}
MOESIM_AVX2_CLONES void unslowed_chain2(std::size_t n, const double* ready, const double* const* duration, double* end,
                                        double* free, double* busy) {
  unslowed_chain_body<2>(n, ready, duration, end, free, busy);
}
MOESIM_AVX2_CLONES void unslowed_chain3(std::size_t n, const double* ready, const double* const* duration, double* end,
                                        double* free, double* busy) {
  unslowed_chain_body<3>(n, ready, duration, end, free, busy);
}

}  // namespace

StreamTimeline::StreamTimeline(int ranks)
    : compute_free_(static_cast<std::size_t>(ranks), 0.0),
      comm_free_(static_cast<std::size_t>(ranks), 0.0),
      busy_(static_cast<std::size_t>(ranks), 0.0) {}

void StreamTimeline::reset() {
  std::fill(compute_free_.begin(), compute_free_.end(), 0.0);
  comm_all_ = 0.0;
  comm_uniform_ = true;
  std::fill(busy_.begin(), busy_.end(), 0.0);
  comm_.clear();
}

// Integrates the op's progress: rate 1 outside the collectives, compute_rate_while_comm_ inside.
// Each overlap is charged to the op issued second (the one that finds the other in flight).
double StreamTimeline::slowed_end(double start, double duration) const {
  if (compute_rate_while_comm_ >= 1.0 || comm_.empty() || comm_.back().second <= start) return start + duration;
  auto it = comm_.end();
  while (it != comm_.begin() && std::prev(it)->second > start) --it;  // the first interval ending after start
  double t = start, left = duration;
  for (; it != comm_.end() && left > 0; ++it) {
    const auto [a, b] = *it;
    if (a > t) {
      if (left <= a - t) return t + left;
      left -= a - t;
      t = a;
    }
    const double span = b - t, work = span * compute_rate_while_comm_;
    if (left <= work) return t + left / compute_rate_while_comm_;
    left -= work;
    t = b;
  }
  return t + left;
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
      free[r] = label.own_sms ? start + d : slowed_end(start, d);
      busy[r] += free[r] - start;
      end[r] = free[r];
      record(static_cast<int>(r), false, label, start, free[r] - start);
    }
    return;
  }
  // The same, without a recorder to ask per rank; an op that starts after the last collective
  // ended is not slowed (slowed_end's first test, hoisted out of the loop).
  const double unslowed_from = label.own_sms || compute_rate_while_comm_ >= 1.0 || comm_.empty()
                                   ? -std::numeric_limits<double>::infinity()
                                   : comm_.back().second;
  if (unslowed_from == -std::numeric_limits<double>::infinity()) {
    unslowed_ops(n, ready.data(), duration.data(), end.data(), free, busy);
    return;
  }
  for (std::size_t r = 0; r < n; ++r) {
    const double start = std::max(free[r], ready[r]), d = duration[r];
    const double finish = start >= unslowed_from ? start + d : slowed_end(start, d);
    free[r] = finish;
    busy[r] += finish - start;
    end[r] = finish;
  }
}

void StreamTimeline::compute_chain(std::span<const double> ready, std::span<const ChainOp> ops, std::span<double> end) {
  const bool unslowed = std::all_of(ops.begin(), ops.end(), [&](const ChainOp& op) {
    return op.label.own_sms || compute_rate_while_comm_ >= 1.0 || comm_.empty();
  });
  if (recorder_ || !unslowed || ops.size() < 2 || ops.size() > 3) {
    std::span<const double> from = ready;
    for (const ChainOp& op : ops) {
      compute(from, op.duration, end, op.label);
      from = end;
    }
    return;
  }
  const double* durations[3] = {};
  for (std::size_t k = 0; k < ops.size(); ++k) durations[k] = ops[k].duration.data();
  (ops.size() == 2 ? unslowed_chain2 : unslowed_chain3)(compute_free_.size(), ready.data(), durations, end.data(),
                                                        compute_free_.data(), busy_.data());
}

double StreamTimeline::collective(std::span<const double> ready, double duration, OpLabel label,
                                  double rate_while_compute) {
  // The latest input and stream ends (sim/lane_max.h), never before time zero.
  const double start = std::max({0.0, comm_uniform_ ? comm_all_ : max_of(comm_free_), max_of(ready)});
  // The member whose compute stream stays busy longest (work issued before this collective) slows
  // it most; its stream counts as busy until its last op ends.
  double end = start + duration;
  if (rate_while_compute < 1.0) {
    if (const double busiest = std::max(0.0, max_of(compute_free_)); busiest > start) {
      const double window = busiest - start, work = window * rate_while_compute;
      end = work >= duration ? start + duration / rate_while_compute : busiest + (duration - work);
    }
  }
  comm_all_ = end;
  comm_uniform_ = true;
  comm_.emplace_back(start, end);
  if (recorder_)
    for (std::size_t r = 0; r < comm_free_.size(); ++r) record(static_cast<int>(r), true, label, start, end - start);
  return end;
}

void StreamTimeline::comm_per_rank() {
  if (!comm_uniform_) return;
  std::fill(comm_free_.begin(), comm_free_.end(), comm_all_);
  comm_uniform_ = false;
}

void StreamTimeline::group_collective(std::span<const double> ready, int group, std::span<const double> duration,
                                      std::span<double> end, OpLabel label) {
  comm_per_rank();
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
  return std::max({0.0, max_of(compute_free_), comm_uniform_ ? comm_all_ : max_of(comm_free_)});
}

}  // namespace moesim::sim
