// The discrete-event engine (DESIGN.md §4).
//
// Events are ordered totally by (time, priority, insertion sequence): lower priority values run
// first at equal times, and ties then run in the order they were scheduled. A handler is a plain
// function pointer with a context pointer and a 64-bit argument, so scheduling allocates nothing
// beyond the heap's own storage. Scheduling in the past violates an invariant (the clock never
// runs backwards). Cancellation is lazy: a cancelled event stays queued and is skipped.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace moesim::sim {

class EventQueue {
 public:
  using Handler = void (*)(void* ctx, std::uint64_t arg);

  struct EventId {
    std::uint64_t seq = 0;
  };

  // Schedules `handler(ctx, arg)` at `at`. Throws InvariantError if `at < now()`.
  EventId schedule(Time at, int priority, Handler handler, void* ctx, std::uint64_t arg);
  // Marks a pending event as cancelled; returns false if it already ran or was cancelled.
  bool cancel(EventId id);

  // Runs the next live event; returns false when the queue is empty.
  bool step();
  // Runs events until the queue is empty.
  void run();
  // Runs events with time <= `until`, then sets now() to `until` if it is later.
  void run_until(Time until);

  Time now() const { return now_; }
  std::size_t pending() const { return heap_.size(); }
  std::uint64_t dispatched() const { return dispatched_; }

 private:
  struct Entry {
    std::int64_t time_ns;
    std::uint64_t order;  // priority in the high 16 bits, insertion sequence below
    Handler handler;
    void* ctx;
    std::uint64_t arg;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
  }
  void push(const Entry& e);
  Entry pop();

  std::vector<Entry> heap_;
  std::vector<std::uint64_t> cancelled_;  // sorted sequence numbers of cancelled events
  Time now_ = Time::zero();
  std::uint64_t next_seq_ = 0;
  std::uint64_t dispatched_ = 0;
};

}  // namespace moesim::sim
