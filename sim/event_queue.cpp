#include "sim/event_queue.h"

#include <bit>
#include <string>

#include "sim/check.h"

namespace moesim::sim {

inline void EventQueue::push_front(std::uint64_t order, std::uint32_t slot) {
  std::size_t hole = front_.size();
  front_.emplace_back();
  FrontEntry* const h = front_.data();
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / 2;
    if (h[parent].order < order) break;
    h[hole] = h[parent];
    hole = parent;
  }
  h[hole] = FrontEntry{order, slot};
}

inline void EventQueue::push(const Entry& e) {
  const std::uint64_t diff = e.time_ns ^ base_;
  if (diff == 0) {
    push_front(e.order, e.slot);
    return;
  }
  const int k = 63 - std::countl_zero(diff);
  buckets_[k].push_back(e);
  occupied_ |= std::uint64_t{1} << k;
}

std::uint64_t EventQueue::reserve() {
  MOESIM_CHECK(next_seq_ <= kSeqMask, "event sequence numbers exhausted (2^48 events)");
  return next_seq_++;
}

EventQueue::EventId EventQueue::schedule(Time at, int priority, Handler handler, void* ctx, std::uint64_t arg) {
  return schedule_reserved(reserve(), at, priority, handler, ctx, arg);
}

EventQueue::EventId EventQueue::schedule_reserved(std::uint64_t seq, Time at, int priority, Handler handler, void* ctx,
                                                  std::uint64_t arg) {
  MOESIM_CHECK(at >= now_, "event scheduled at " + std::to_string(at.count_ns()) +
                               " ns, before now() = " + std::to_string(now_.count_ns()) + " ns");
  // The radix heap holds nothing before base_ (which may run ahead of now() while the queue is
  // not empty, up to the limit of a step_until that found nothing to run).
  MOESIM_CHECK(size_ == 0 || static_cast<std::uint64_t>(at.count_ns()) >= base_,
               "event scheduled at " + std::to_string(at.count_ns()) + " ns, before the queue's earliest time " +
                   std::to_string(base_) + " ns");
  MOESIM_CHECK(priority >= kMinPriority && priority <= kMaxPriority, "event priority " + std::to_string(priority) +
                                                                         " outside [" + std::to_string(kMinPriority) +
                                                                         ", " + std::to_string(kMaxPriority) + "]");
  MOESIM_CHECK(handler != nullptr, "null event handler");
  MOESIM_CHECK(seq < next_seq_, "event scheduled under a sequence number never reserved");

  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    MOESIM_CHECK(slots_.size() < 0xFFFF'FFFFu, "more than 2^32 - 1 events pending");
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  slots_[slot] = Slot{handler, ctx, arg, seq};
  const auto prio_bits = static_cast<std::uint64_t>(priority - kMinPriority);
  push(Entry{static_cast<std::uint64_t>(at.count_ns()), (prio_bits << kSeqBits) | seq, slot});
  ++size_;
  return EventId{seq, slot};
}

bool EventQueue::cancel(EventId id) {
  if (id.slot >= slots_.size()) return false;
  Slot& s = slots_[id.slot];
  if (s.seq != id.seq || s.handler == nullptr) return false;
  s.handler = nullptr;
  ++cancelled_in_heap_;
  return true;
}

void EventQueue::release(std::uint32_t slot) {
  slots_[slot].seq = kFreeSeq;
  free_slots_.push_back(slot);
}

bool EventQueue::step() { return step_until(~std::uint64_t{0}); }

bool EventQueue::step_until(std::uint64_t limit) {
  while (fill_front(limit)) {
    const FrontEntry top = pop_front();
    const Slot& s = slots_[top.slot];
    const Handler handler = s.handler;
    void* const ctx = s.ctx;
    const std::uint64_t arg = s.arg;
    release(top.slot);  // before the call, so the handler can reuse the slot
    if (handler == nullptr) [[unlikely]] {
      --cancelled_in_heap_;
      continue;
    }
    MOESIM_CHECK(base_ >= static_cast<std::uint64_t>(now_.count_ns()), "event queue: the clock ran backwards from " +
                                                                           std::to_string(now_.count_ns()) + " ns to " +
                                                                           std::to_string(base_) + " ns");
    now_ = Time::from_ns(static_cast<std::int64_t>(base_));
    ++dispatched_;
    handler(ctx, arg);
    return true;
  }
  // Popping cancelled entries may have carried base_ past now(); once nothing is left, rewind
  // it so that events can again be scheduled from now() on. (When entries remain, base_ <= limit,
  // and run_until moves now() up to the limit.)
  if (size_ == 0) base_ = static_cast<std::uint64_t>(now_.count_ns());
  return false;
}

void EventQueue::run() {
  while (step()) {}
}

void EventQueue::run_until(Time until) {
  MOESIM_CHECK(until >= now_, "run_until(" + std::to_string(until.count_ns()) +
                                  " ns) before now() = " + std::to_string(now_.count_ns()) + " ns");
  while (step_until(static_cast<std::uint64_t>(until.count_ns()))) {}
  if (until > now_) now_ = until;
}

bool EventQueue::fill_front(std::uint64_t limit) {
  if (!front_.empty()) return base_ <= limit;
  if (occupied_ == 0) return false;
  const int k = std::countr_zero(occupied_);
  std::vector<Entry>& bucket = buckets_[k];
  std::uint64_t min_time = ~std::uint64_t{0};
  for (const Entry& e : bucket) min_time = e.time_ns < min_time ? e.time_ns : min_time;
  if (min_time > limit) return false;

  // Re-base on the earliest time. Every entry of the lowest bucket moves to a lower one (those
  // at min_time to front_); the higher buckets stay valid because min_time agrees with the old
  // base_ on every bit above k.
  base_ = min_time;
  std::uint64_t occupied = occupied_ & ~(std::uint64_t{1} << k);
  for (const Entry& e : bucket) {
    const std::uint64_t diff = e.time_ns ^ min_time;
    if (diff == 0) {
      push_front(e.order, e.slot);
    } else {
      const int to = 63 - std::countl_zero(diff);
      buckets_[to].push_back(e);
      occupied |= std::uint64_t{1} << to;
    }
  }
  occupied_ = occupied;
  bucket.clear();
  return true;
}

EventQueue::FrontEntry EventQueue::pop_front() {
  FrontEntry* const h = front_.data();
  const FrontEntry top = h[0];
  const FrontEntry last = front_.back();
  front_.pop_back();
  const std::size_t n = front_.size();
  if (n > 0) {
    std::size_t hole = 0;
    for (;;) {
      std::size_t c = 2 * hole + 1;
      if (c >= n) break;
      if (c + 1 < n && h[c + 1].order < h[c].order) ++c;
      if (last.order < h[c].order) break;
      h[hole] = h[c];
      hole = c;
    }
    h[hole] = last;
  }
  --size_;
  return top;
}

}  // namespace moesim::sim
