// StreamTimeline: each rank's compute stream and communication stream within one step.
//
// Ops are issued in a fixed order (the overlap scheme's schedule). A compute op on a rank starts
// when that rank's compute stream is free and its input is ready; a collective over all ranks
// starts when every rank's communication stream is free and every rank's input is ready, and
// ends for all ranks together (an all-to-all synchronises its group). Issuing in a valid
// topological order that respects each stream's order makes one pass exact, which is what the
// event-per-op formulation would compute, at a fraction of the cost.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/trace.h"

namespace moesim::sim {

struct OpLabel {
  const char* name = "";  // static string
  int layer = -1;
  int micro_batch = 0;
  bool own_sms = false;  // runs on SMs the communication kernels never take: not slowed beside them
};

class StreamTimeline {
 public:
  explicit StreamTimeline(int ranks);
  void reset();
  // Reports the ops of this step to `recorder` (null: none), shifted by `step_start_ns`.
  // `rank_offset` is added to the rank of every event (pipeline stages after the first).
  void trace_into(TraceRecorder* recorder, int pool, int instance, std::int64_t step_start_ns, int rank_offset = 0);

  // Per rank r: start = max(compute_free[r], ready[r]); end[r] = start + duration[r].
  // `end` may alias `ready` or `duration`.
  void compute(std::span<const double> ready, std::span<const double> duration, std::span<double> end,
               OpLabel label = {});
  // Ops issued one after another on every rank, each ready when the one before it on the rank
  // ends (the first when `ready` is): what compute() of each in turn places, with `end` the last
  // one's end (it may alias `ready`), in one pass over the ranks when nothing slows them.
  struct ChainOp {
    std::span<const double> duration;
    OpLabel label;
  };
  void compute_chain(std::span<const double> ready, std::span<const ChainOp> ops, std::span<double> end);
  // Returns the common end time of a collective lasting `duration` once all ranks are ready.
  // While a member's compute stream is still busy with work issued before it, the collective
  // progresses at `rate_while_compute` (<= 1; its copies share HBM with that work).
  double collective(std::span<const double> ready, double duration, OpLabel label = {},
                    double rate_while_compute = 1.0);
  // Interference (docs/architecture.md, "Overlap"): a compute op issued while a collective is in
  // flight progresses at `rate` (<= 1) for as long as they overlap (the communication kernels hold
  // some of the SMs); 1: none.
  void set_compute_rate_while_comm(double rate) { compute_rate_while_comm_ = rate; }
  // A collective within each group of `group` consecutive ranks that holds its members' compute
  // and communication streams (the tensor-parallel all-reduce, all-gather and reduce-scatter run
  // as NCCL kernels in the compute stream's order): group g starts when its members' inputs and
  // both streams are free and ends for all of them duration[g] later. It is communication, so it
  // does not count as compute busy time. `end` may alias `ready`.
  void group_collective(std::span<const double> ready, int group, std::span<const double> duration,
                        std::span<double> end, OpLabel label = {});

  double compute_busy(int rank) const { return busy_[static_cast<std::size_t>(rank)]; }
  std::span<const double> compute_busy() const { return busy_; }  // every rank's
  double finish() const;                                          // latest end over all streams

 private:
  void record(int rank, bool comm, OpLabel label, double start, double duration);

  // The end of an op of `duration` starting at `start` while the collectives of `comm_` run.
  double slowed_end(double start, double duration) const;

  // Every rank's communication stream frees at comm_all_ while comm_uniform_ (an all-rank
  // collective was the last op on it, or none): comm_free_ is then not kept up to date.
  void comm_per_rank();  // makes comm_free_ the streams' ends again

  std::vector<double> compute_free_, comm_free_, busy_;
  double comm_all_ = 0.0;
  bool comm_uniform_ = true;
  std::vector<std::pair<double, double>> comm_;  // this step's all-rank collectives [start, end), in order
  double compute_rate_while_comm_ = 1.0;
  TraceRecorder* recorder_ = nullptr;
  TraceEvent base_;
  std::int64_t offset_ns_ = 0;
  int rank_offset_ = 0;
};

}  // namespace moesim::sim
