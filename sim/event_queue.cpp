#include "sim/event_queue.h"

#include <string>

#include "sim/check.h"

namespace moesim::sim {

EventQueue::EventId EventQueue::schedule(Time at, int priority, Handler handler, void* ctx,
                                         std::uint64_t arg) {
  MOESIM_CHECK(at >= now_, "event scheduled at " + std::to_string(at.count_ns()) +
                               " ns, before now() = " + std::to_string(now_.count_ns()) + " ns");
  MOESIM_CHECK(priority >= kMinPriority && priority <= kMaxPriority,
               "event priority " + std::to_string(priority) + " outside [" +
                   std::to_string(kMinPriority) + ", " + std::to_string(kMaxPriority) + "]");
  MOESIM_CHECK(handler != nullptr, "null event handler");
  MOESIM_CHECK(next_seq_ <= kSeqMask, "event sequence numbers exhausted (2^48 events)");

  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    MOESIM_CHECK(slots_.size() < 0xFFFF'FFFFu, "more than 2^32 - 1 events pending");
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const std::uint64_t seq = next_seq_++;
  slots_[slot] = Slot{handler, ctx, arg, seq};

  const auto prio_bits = static_cast<std::uint64_t>(priority - kMinPriority);
  heap_.emplace_back();
  sift_up(heap_.size() - 1, Entry{at.count_ns(), (prio_bits << kSeqBits) | seq, slot});
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

bool EventQueue::step() {
  while (!heap_.empty()) {
    const Entry top = heap_.front();
    pop_top();
    Slot& s = slots_[top.slot];
    const Handler handler = s.handler;
    void* const ctx = s.ctx;
    const std::uint64_t arg = s.arg;
    s.seq = kFreeSeq;
    free_slots_.push_back(top.slot);  // before the call, so the handler can reuse the slot
    if (handler == nullptr) [[unlikely]] {
      --cancelled_in_heap_;
      continue;
    }
    now_ = Time::from_ns(top.time_ns);
    ++dispatched_;
    handler(ctx, arg);
    return true;
  }
  return false;
}

void EventQueue::run() {
  while (step()) {
  }
}

void EventQueue::run_until(Time until) {
  MOESIM_CHECK(until >= now_, "run_until(" + std::to_string(until.count_ns()) +
                                  " ns) before now() = " + std::to_string(now_.count_ns()) + " ns");
  while (skip_cancelled() && heap_.front().time_ns <= until.count_ns()) step();
  if (until > now_) now_ = until;
}

bool EventQueue::skip_cancelled() {
  while (!heap_.empty()) {
    const std::uint32_t slot = heap_.front().slot;
    Slot& s = slots_[slot];
    if (s.handler != nullptr) return true;
    pop_top();
    s.seq = kFreeSeq;
    free_slots_.push_back(slot);
    --cancelled_in_heap_;
  }
  return false;
}

void EventQueue::sift_up(std::size_t hole, Entry e) {
  Entry* const h = heap_.data();
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / 4;
    if (!before(e, h[parent])) break;
    h[hole] = h[parent];
    hole = parent;
  }
  h[hole] = e;
}

namespace {

// Branch-free index (0..3) of the smallest of four consecutive (time, order) keys.
template <typename E>
inline std::size_t min_of_family(const E* f) {
  auto less = [](std::uint64_t ta, std::uint64_t oa, std::uint64_t tb, std::uint64_t ob) {
    // (ta, oa) < (tb, ob) as one 128-bit unsigned comparison.
    return static_cast<std::uint64_t>(ta < tb) | (static_cast<std::uint64_t>(ta == tb) & (oa < ob));
  };
  const auto t0 = static_cast<std::uint64_t>(f[0].time_ns), o0 = f[0].order;
  const auto t1 = static_cast<std::uint64_t>(f[1].time_ns), o1 = f[1].order;
  const auto t2 = static_cast<std::uint64_t>(f[2].time_ns), o2 = f[2].order;
  const auto t3 = static_cast<std::uint64_t>(f[3].time_ns), o3 = f[3].order;
  const std::uint64_t x = less(t1, o1, t0, o0);
  const std::uint64_t y = less(t3, o3, t2, o2);
  const std::uint64_t mx = 0 - x, my = 0 - y;
  const std::uint64_t ta = t0 ^ ((t0 ^ t1) & mx), oa = o0 ^ ((o0 ^ o1) & mx);
  const std::uint64_t tb = t2 ^ ((t2 ^ t3) & my), ob = o2 ^ ((o2 ^ o3) & my);
  const std::uint64_t z = less(tb, ob, ta, oa);
  return static_cast<std::size_t>(x ^ ((x ^ (2 + y)) & (0 - z)));
}

}  // namespace

void EventQueue::sift_down(Entry e) {
  // Bottom-up ("Floyd") variant: walk the hole down along the smallest children to a leaf
  // without comparing against `e`, then sift `e` up from there. `e` comes from the bottom of the
  // heap, so it rarely climbs, and the descent has no data-dependent exit branch.
  Entry* const h = heap_.data();
  const std::size_t n = heap_.size();
  std::size_t hole = 0;
  for (;;) {
    const std::size_t c = 4 * hole + 1;
    std::size_t best;
    if (c + 4 <= n) [[likely]] {
      // Full family: a tournament on values held in registers, selected with masks, so the
      // critical path has no unpredictable branch and no reload of the winners.
      const std::size_t a = c + static_cast<std::size_t>(before(h[c + 1], h[c]));
      const std::size_t b = c + 2 + static_cast<std::size_t>(before(h[c + 3], h[c + 2]));
      best = a + (b - a) * static_cast<std::size_t>(before(h[b], h[a]));
    } else {
      if (c >= n) break;
      best = c;
      for (std::size_t k = c + 1; k < n; ++k) {
        if (before(h[k], h[best])) best = k;
      }
    }
    h[hole] = h[best];
    hole = best;
  }
  sift_up(hole, e);
}

void EventQueue::pop_top() {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(last);
}

}  // namespace moesim::sim
