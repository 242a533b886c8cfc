// The discrete-event engine (docs/design.md §4).
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
// - Implementation: a radix heap on time (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms
//   for the shortest path problem", J. ACM 37(2), 1990), which is valid because the keys taken
//   out never decrease. Entries with the current earliest time sit in a small binary heap on
//   (priority, sequence). Entries are 24-byte PODs moved with sequential scans (no std::function,
//   no per-event allocation); handler, context and argument live in a slot table recycled
//   through a free list, so memory follows the peak number of pending events.
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
    std::uint64_t seq = 0;             // insertion sequence number (0 for the first event)
    std::uint32_t slot = 0xFFFF'FFFF;  // where the event lives in the queue; none by default
  };

  // Schedules `handler(ctx, arg)` at `at`. Throws InvariantError if `at < now()`, if `priority`
  // is outside [kMinPriority, kMaxPriority] or if `handler` is null.
  EventId schedule(Time at, int priority, Handler handler, void* ctx, std::uint64_t arg);
  // Takes the next insertion sequence number for an event whose time is not known yet; it is
  // then scheduled with schedule_reserved, and runs where it would have had it been scheduled
  // now. Parallel steps (sim/step_workers.h) keep the serial run's total order this way.
  std::uint64_t reserve();
  // Schedules an event under a sequence number reserve() returned (each at most once). Besides
  // schedule()'s checks, `at` must not precede the earliest time the queue has run up to.
  EventId schedule_reserved(std::uint64_t seq, Time at, int priority, Handler handler, void* ctx, std::uint64_t arg);
  // Marks a pending event as cancelled; returns false if it already ran or was cancelled (or the
  // id is unknown). A cancelled event never runs and does not move the clock.
  bool cancel(EventId id);

  // Runs the next live event (setting now() to its time first); returns false when no live event
  // is left.
  bool step();
  // Runs the next live event if its time is <= `limit`; returns false (running nothing) when
  // no live event is left that early.
  bool step_within(Time limit) { return step_until(static_cast<std::uint64_t>(limit.count_ns())); }
  // Runs events until the queue is empty.
  void run();
  // Runs events with time <= `until` (including those scheduled meanwhile by handlers), then sets
  // now() to `until` if it is later. Throws InvariantError if `until < now()`.
  void run_until(Time until);

  Time now() const { return now_; }
  // Live (scheduled, not yet run, not cancelled) events.
  std::size_t pending() const { return size_ - cancelled_in_heap_; }
  // Events run so far (cancelled ones excluded).
  std::uint64_t dispatched() const { return dispatched_; }

 private:
  static constexpr int kSeqBits = 48;
  static constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kSeqBits) - 1;
  static constexpr std::uint64_t kFreeSeq = ~std::uint64_t{0};  // the slot holds no event

  struct Entry {
    std::uint64_t time_ns;  // never negative: nothing is scheduled before now() >= 0
    std::uint64_t order;    // (priority - kMinPriority) in the high 16 bits, sequence below
    std::uint32_t slot;
  };
  struct FrontEntry {  // an entry whose time is base_
    std::uint64_t order;
    std::uint32_t slot;
  };
  struct Slot {
    Handler handler;  // null once cancelled
    void* ctx;
    std::uint64_t arg;
    std::uint64_t seq;  // kFreeSeq while the slot is on the free list
  };

  bool step_until(std::uint64_t limit);
  void push(const Entry& e);
  void push_front(std::uint64_t order, std::uint32_t slot);
  // Makes front_ non-empty if an entry with time <= limit exists; returns whether it did.
  // Never moves base_ past `limit`.
  bool fill_front(std::uint64_t limit);
  FrontEntry pop_front();  // precondition: front_ is not empty
  void release(std::uint32_t slot);

  // The radix heap. Invariant: every held time is >= base_, and base_ <= now() whenever the queue
  // is not empty (so anything schedulable is >= base_). buckets_[k] holds the entries whose time
  // first differs from base_ at bit k; front_ holds those whose time equals base_, as a binary
  // min-heap on order. base_ moves up to the earliest time when front_ runs dry and is rewound to
  // now() when the queue empties (popping cancelled entries can carry it past now()).
  std::vector<Entry> buckets_[64];
  std::vector<FrontEntry> front_;
  std::uint64_t occupied_ = 0;  // bit k set when buckets_[k] is not empty
  std::uint64_t base_ = 0;
  std::size_t size_ = 0;  // entries held, cancelled ones included
  std::size_t cancelled_in_heap_ = 0;

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  Time now_ = Time::zero();
  std::uint64_t next_seq_ = 0;
  std::uint64_t dispatched_ = 0;
};

}  // namespace moesim::sim
