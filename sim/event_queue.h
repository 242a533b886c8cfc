// The discrete-event engine (DESIGN.md §4).
//
// Events are ordered totally by (time, priority, insertion sequence): lower priority values run
// first at equal times, and ties then run in the order they were scheduled. A handler is a plain
// function pointer with a context pointer and a 64-bit argument, so scheduling allocates nothing
// beyond the queue's own storage. Scheduling in the past violates an invariant (the clock never
// runs backwards). Cancellation is lazy: a cancelled event stays queued and is skipped.
//
// Contract details:
// - Priorities lie in [kMinPriority, kMaxPriority] (16 bits); 0 is the natural default. Outside
//   that range, a null handler, or more than 2^48 events in one queue is an InvariantError.
// - A handler may schedule and cancel events (including at now()); it must not call step(),
//   run() or run_until() on the same queue.
// - Ids are valid only for the queue that issued them. cancel() is O(1); it returns false for an
//   event that already ran, was already cancelled, or that this queue never issued.
// - Implementation: a 4-ary min-heap of 24-byte keys in a std::vector (hand-written sift, no
//   std::function) whose entries point into a slot table holding handler, context and argument;
//   slots are recycled through a free list, so memory is proportional to the peak pending count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace moesim::sim {

class EventQueue {
 public:
  using Handler = void (*)(void* ctx, std::uint64_t arg);

  static constexpr int kMinPriority = -32768;
  static constexpr int kMaxPriority = 32767;

  struct EventId {
    std::uint64_t seq = 0;            // insertion sequence number (0 for the first event)
    std::uint32_t slot = 0xFFFF'FFFF;  // where the event lives in the queue; none by default
  };

  // Schedules `handler(ctx, arg)` at `at`. Throws InvariantError if `at < now()`, if `priority`
  // is outside [kMinPriority, kMaxPriority] or if `handler` is null.
  EventId schedule(Time at, int priority, Handler handler, void* ctx, std::uint64_t arg);
  // Marks a pending event as cancelled; returns false if it already ran or was cancelled (or the
  // id is unknown). A cancelled event never runs and does not move the clock.
  bool cancel(EventId id);

  // Runs the next live event (setting now() to its time first); returns false when no live event
  // is left.
  bool step();
  // Runs events until the queue is empty.
  void run();
  // Runs events with time <= `until` (including those scheduled meanwhile by handlers), then sets
  // now() to `until` if it is later. Throws InvariantError if `until < now()`.
  void run_until(Time until);

  Time now() const { return now_; }
  // Live (scheduled, not yet run, not cancelled) events.
  std::size_t pending() const { return heap_.size() - cancelled_in_heap_; }
  // Events run so far (cancelled ones excluded).
  std::uint64_t dispatched() const { return dispatched_; }

 private:
  static constexpr int kSeqBits = 48;
  static constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;
  static constexpr std::uint64_t kFreeSeq = ~std::uint64_t{0};  // slot holds no event

  struct Entry {
    std::int64_t time_ns;
    std::uint64_t order;  // (priority - kMinPriority) in the high 16 bits, sequence below
    std::uint32_t slot;
  };
  struct Slot {
    Handler handler;  // null once cancelled
    void* ctx;
    std::uint64_t arg;
    std::uint64_t seq;  // kFreeSeq when the slot is on the free list
  };

  // Branch-free (time, order) comparison. Times are never negative (now() starts at zero and
  // nothing is scheduled before it), so comparing them as unsigned is exact.
  static bool before(const Entry& a, const Entry& b) {
    __extension__ using Key = unsigned __int128;
    const Key ka = (Key{static_cast<std::uint64_t>(a.time_ns)} << 64) | a.order;
    const Key kb = (Key{static_cast<std::uint64_t>(b.time_ns)} << 64) | b.order;
    return ka < kb;
  }
  void sift_up(std::size_t hole, Entry e);
  void sift_down(Entry e);  // places `e` starting from the root hole
  void pop_top();
  // Pops cancelled entries off the top; returns false when the heap is empty afterwards.
  bool skip_cancelled();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t cancelled_in_heap_ = 0;
  Time now_ = Time::zero();
  std::uint64_t next_seq_ = 0;
  std::uint64_t dispatched_ = 0;
};

}  // namespace moesim::sim
