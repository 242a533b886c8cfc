// Op-level trace of a run, for Perfetto (docs/design.md §2 "trace sink").
//
// The step model reports every op it places on a rank's compute or communication stream; the
// recorder keeps those of the chosen ranks within a window of steps, up to a cap on events, so
// a trace of a big run stays small. tools/ writes the events as Chrome trace-event JSON.
#pragma once

#include <cstdint>
#include <vector>

namespace moesim::sim {

struct TraceOptions {
  std::int64_t first_step = 0;  // per instance
  std::int64_t last_step = 20;  // inclusive
  int max_ranks = 8;            // ranks 0 .. max_ranks-1 of each instance
  std::int64_t max_events = 2'000'000;
};

struct TraceEvent {
  std::int16_t pool = 0;
  std::int16_t instance = 0;
  std::int32_t rank = 0;
  bool comm = false;      // communication stream (else compute)
  const char* name = "";  // static string
  std::int32_t layer = -1;
  std::int8_t micro_batch = 0;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
};

class TraceRecorder {
 public:
  explicit TraceRecorder(TraceOptions options) : options_(options) {}
  bool wants_step(std::int64_t step) const {
    return step >= options_.first_step && step <= options_.last_step && !full();
  }
  bool wants_rank(int rank) const { return rank < options_.max_ranks; }
  bool full() const { return static_cast<std::int64_t>(events_.size()) >= options_.max_events; }
  void add(const TraceEvent& e) {
    if (!full()) events_.push_back(e);
  }
  const std::vector<TraceEvent>& events() const { return events_; }
  bool truncated() const { return full(); }

 private:
  TraceOptions options_;
  std::vector<TraceEvent> events_;
};

}  // namespace moesim::sim
