#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/check.h"

namespace moesim::sim {
namespace {

// Records (time, arg) of every dispatched event.
struct Recorder {
  EventQueue* queue = nullptr;
  std::vector<std::pair<std::int64_t, std::uint64_t>> seen;

  static void on_event(void* ctx, std::uint64_t arg) {
    auto* self = static_cast<Recorder*>(ctx);
    self->seen.emplace_back(self->queue->now().count_ns(), arg);
  }
  std::vector<std::uint64_t> args() const {
    std::vector<std::uint64_t> out;
    for (const auto& [t, a] : seen) out.push_back(a);
    return out;
  }
};

Time at_ns(std::int64_t ns) { return Time::from_ns(ns); }

TEST(EventQueue, RunsEqualTimesInInsertionOrder) {
  EventQueue q;
  Recorder r{&q, {}};
  for (std::uint64_t i = 0; i < 100; ++i) q.schedule(at_ns(50), 3, &Recorder::on_event, &r, i);
  q.run();
  std::vector<std::uint64_t> expected(100);
  for (std::uint64_t i = 0; i < 100; ++i) expected[i] = i;
  EXPECT_EQ(r.args(), expected);
  EXPECT_EQ(q.dispatched(), 100u);
  EXPECT_EQ(q.pending(), 0u);
}

TEST(EventQueue, RunsLowerPriorityValueFirstAtEqualTime) {
  EventQueue q;
  Recorder r{&q, {}};
  q.schedule(at_ns(10), 5, &Recorder::on_event, &r, 5);
  q.schedule(at_ns(10), 0, &Recorder::on_event, &r, 0);
  q.schedule(at_ns(10), EventQueue::kMaxPriority, &Recorder::on_event, &r, 99);
  q.schedule(at_ns(10), -7, &Recorder::on_event, &r, 7);
  q.schedule(at_ns(10), EventQueue::kMinPriority, &Recorder::on_event, &r, 1);
  q.schedule(at_ns(10), 5, &Recorder::on_event, &r, 6);                         // same priority: after arg 5
  q.schedule(at_ns(9), EventQueue::kMaxPriority, &Recorder::on_event, &r, 42);  // earlier time wins
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{42, 1, 7, 0, 5, 6, 99}));
}

TEST(EventQueue, ReservedEventRunsWhereItWouldHaveRunHadItBeenScheduledThen) {
  EventQueue q;
  Recorder r{&q, {}};
  const std::uint64_t seq = q.reserve();                 // a step starts: its end's place is taken
  q.schedule(at_ns(30), 2, &Recorder::on_event, &r, 1);  // scheduled later, at the same time and priority
  q.schedule(at_ns(20), 0, &Recorder::on_event, &r, 2);
  ASSERT_TRUE(q.step_within(at_ns(25)));  // the run reads ahead up to the step's lower bound
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{2}));
  q.schedule_reserved(seq, at_ns(30), 2, &Recorder::on_event, &r, 0);  // the step's end, known now
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{2, 0, 1}));  // before the event scheduled after its reservation
}

TEST(EventQueue, RejectsAReservedEventBeforeWhatItRanOrUnderANumberNeverReserved) {
  EventQueue q;
  Recorder r{&q, {}};
  const std::uint64_t seq = q.reserve();
  q.schedule(at_ns(40), 0, &Recorder::on_event, &r, 1);
  q.schedule(at_ns(50), 0, &Recorder::on_event, &r, 2);
  ASSERT_TRUE(q.step());  // now() = 40
  EXPECT_THROW(q.schedule_reserved(seq, at_ns(39), 0, &Recorder::on_event, &r, 0), InvariantError);
  EXPECT_THROW(q.schedule_reserved(seq + 100, at_ns(45), 0, &Recorder::on_event, &r, 0), InvariantError);
  q.schedule_reserved(seq, at_ns(45), 0, &Recorder::on_event, &r, 0);
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{1, 0, 2}));
}

TEST(EventQueue, RejectsPriorityOutsideSixteenBits) {
  EventQueue q;
  Recorder r{&q, {}};
  EXPECT_THROW(q.schedule(at_ns(1), EventQueue::kMaxPriority + 1, &Recorder::on_event, &r, 0), InvariantError);
  EXPECT_THROW(q.schedule(at_ns(1), EventQueue::kMinPriority - 1, &Recorder::on_event, &r, 0), InvariantError);
  EXPECT_THROW(q.schedule(at_ns(1), 0, nullptr, &r, 0), InvariantError);
  EXPECT_EQ(q.pending(), 0u);
}

TEST(EventQueue, OrdersManyRandomEventsLikeASortedReference) {
  EventQueue q;
  Recorder r{&q, {}};
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<std::int64_t> time_dist(0, 5'000);  // many ties on purpose
  std::uniform_int_distribution<int> prio_dist(-3, 3);
  struct Ref {
    std::int64_t time;
    int priority;
    std::uint64_t seq;
  };
  std::vector<Ref> ref;
  constexpr std::uint64_t kCount = 100'000;
  for (std::uint64_t i = 0; i < kCount; ++i) {
    const Ref e{time_dist(rng), prio_dist(rng), i};
    ref.push_back(e);
    const auto id = q.schedule(at_ns(e.time), e.priority, &Recorder::on_event, &r, i);
    ASSERT_EQ(id.seq, i);
  }
  EXPECT_EQ(q.pending(), kCount);
  std::sort(ref.begin(), ref.end(), [](const Ref& a, const Ref& b) {
    return std::tie(a.time, a.priority, a.seq) < std::tie(b.time, b.priority, b.seq);
  });
  q.run();
  ASSERT_EQ(r.seen.size(), kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(r.seen[i].first, ref[i].time) << "at position " << i;
    ASSERT_EQ(r.seen[i].second, ref[i].seq) << "at position " << i;
  }
}

TEST(EventQueue, SchedulingInThePastThrowsInvariantError) {
  EventQueue q;
  Recorder r{&q, {}};
  q.schedule(at_ns(100), 0, &Recorder::on_event, &r, 0);
  q.run();
  ASSERT_EQ(q.now(), at_ns(100));
  try {
    q.schedule(at_ns(99), 0, &Recorder::on_event, &r, 1);
    FAIL() << "expected InvariantError";
  } catch (const InvariantError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("invariant violated: ", 0), 0u) << what;
    EXPECT_NE(what.find("at >= now_"), std::string::npos) << what;
    EXPECT_NE(what.find("event_queue.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("scheduled at 99 ns, before now() = 100 ns"), std::string::npos) << what;
  }
  // Scheduling exactly at now() is fine and runs.
  q.schedule(at_ns(100), 0, &Recorder::on_event, &r, 2);
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{0, 2}));
}

TEST(EventQueue, InvariantMessageNamesExpressionFileAndLine) {
  const int line = __LINE__ + 2;
  try {
    MOESIM_CHECK(1 + 1 == 3, "arithmetic is broken");
    FAIL() << "expected InvariantError";
  } catch (const InvariantError& e) {
    const std::string expected = "invariant violated: 1 + 1 == 3 (" + std::string(__FILE__) + ":" +
                                 std::to_string(line) + "): arithmetic is broken";
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

TEST(EventQueue, CancelledEventIsSkippedAndCancelReturnsFalseAfterwards) {
  EventQueue q;
  Recorder r{&q, {}};
  q.schedule(at_ns(10), 0, &Recorder::on_event, &r, 1);
  const auto victim = q.schedule(at_ns(20), 0, &Recorder::on_event, &r, 2);
  q.schedule(at_ns(30), 0, &Recorder::on_event, &r, 3);
  EXPECT_EQ(q.pending(), 3u);
  EXPECT_TRUE(q.cancel(victim));
  EXPECT_FALSE(q.cancel(victim));
  EXPECT_FALSE(q.cancel(victim));
  EXPECT_EQ(q.pending(), 2u);
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{1, 3}));
  EXPECT_EQ(q.dispatched(), 2u);
  EXPECT_EQ(q.pending(), 0u);
  EXPECT_FALSE(q.cancel(victim));
}

TEST(EventQueue, CancelReturnsFalseForRunAndUnknownIds) {
  EventQueue q;
  Recorder r{&q, {}};
  const auto first = q.schedule(at_ns(1), 0, &Recorder::on_event, &r, 1);
  ASSERT_TRUE(q.step());
  EXPECT_FALSE(q.cancel(first));  // already ran
  // The slot of `first` is reused by the next event; the stale id must not cancel it.
  const auto second = q.schedule(at_ns(2), 0, &Recorder::on_event, &r, 2);
  EXPECT_FALSE(q.cancel(first));
  EXPECT_FALSE(q.cancel(EventQueue::EventId{}));                             // default id
  EXPECT_FALSE(q.cancel(EventQueue::EventId{second.seq + 7, second.slot}));  // never issued
  EXPECT_FALSE(q.cancel(EventQueue::EventId{second.seq, second.slot + 100}));
  q.run();
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{1, 2}));
}

TEST(EventQueue, CancelledEventDoesNotMoveTheClock) {
  EventQueue q;
  Recorder r{&q, {}};
  const auto id = q.schedule(at_ns(500), 0, &Recorder::on_event, &r, 1);
  ASSERT_TRUE(q.cancel(id));
  EXPECT_FALSE(q.step());
  EXPECT_EQ(q.now(), Time::zero());
  EXPECT_EQ(q.dispatched(), 0u);
}

TEST(EventQueue, RunUntilRunsEventsUpToAndIncludingTheLimit) {
  EventQueue q;
  Recorder r{&q, {}};
  for (std::int64_t t : {10, 20, 30, 40}) {
    q.schedule(at_ns(t), 0, &Recorder::on_event, &r, static_cast<std::uint64_t>(t));
  }
  q.run_until(at_ns(30));
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{10, 20, 30}));
  EXPECT_EQ(q.now(), at_ns(30));
  EXPECT_EQ(q.pending(), 1u);

  q.run_until(at_ns(35));  // nothing due: the clock still advances to the limit
  EXPECT_EQ(q.now(), at_ns(35));
  EXPECT_EQ(r.seen.size(), 3u);
  EXPECT_THROW(q.schedule(at_ns(34), 0, &Recorder::on_event, &r, 0), InvariantError);
  EXPECT_THROW(q.run_until(at_ns(34)), InvariantError);

  q.run_until(at_ns(1'000));
  EXPECT_EQ(r.args(), (std::vector<std::uint64_t>{10, 20, 30, 40}));
  EXPECT_EQ(q.now(), at_ns(1'000));
}

TEST(EventQueue, RunUntilDoesNotRunPastACancelledHead) {
  EventQueue q;
  Recorder r{&q, {}};
  const auto early = q.schedule(at_ns(5), 0, &Recorder::on_event, &r, 5);
  q.schedule(at_ns(50), 0, &Recorder::on_event, &r, 50);
  ASSERT_TRUE(q.cancel(early));
  q.run_until(at_ns(10));
  EXPECT_TRUE(r.seen.empty());
  EXPECT_EQ(q.now(), at_ns(10));
  EXPECT_EQ(q.pending(), 1u);
}

TEST(EventQueue, SchedulesBetweenNowAndACancelledLaterHead) {
  EventQueue q;
  Recorder r{&q, {}};
  const auto far = q.schedule(at_ns(1'000), 0, &Recorder::on_event, &r, 1'000);
  q.schedule(at_ns(2'000), 0, &Recorder::on_event, &r, 2'000);
  ASSERT_TRUE(q.cancel(far));
  q.run_until(at_ns(100));
  q.schedule(at_ns(500), 0, &Recorder::on_event, &r, 500);  // before the cancelled head
  q.schedule(at_ns(100), 0, &Recorder::on_event, &r, 100);
  q.run();
  EXPECT_EQ(r.seen, (std::vector<std::pair<std::int64_t, std::uint64_t>>{{100, 100}, {500, 500}, {2'000, 2'000}}));
}

TEST(EventQueue, SchedulesAgainAfterOnlyCancelledEventsWereLeft) {
  EventQueue q;
  Recorder r{&q, {}};
  q.schedule(at_ns(10), 0, &Recorder::on_event, &r, 10);
  const auto a = q.schedule(at_ns(1'000), 0, &Recorder::on_event, &r, 1'000);
  const auto b = q.schedule(at_ns(5'000), 0, &Recorder::on_event, &r, 5'000);
  ASSERT_TRUE(q.step());
  ASSERT_TRUE(q.cancel(a));
  ASSERT_TRUE(q.cancel(b));
  EXPECT_FALSE(q.step());
  EXPECT_EQ(q.now(), at_ns(10));
  // Times on both sides of a high bit, below the cancelled ones.
  q.schedule(at_ns(4'097), 0, &Recorder::on_event, &r, 4'097);
  q.schedule(at_ns(20), 0, &Recorder::on_event, &r, 20);
  q.schedule(at_ns(10), 0, &Recorder::on_event, &r, 11);
  q.run();
  EXPECT_EQ(r.seen,
            (std::vector<std::pair<std::int64_t, std::uint64_t>>{{10, 10}, {10, 11}, {20, 20}, {4'097, 4'097}}));
}

// Random interleavings of schedule, cancel, step and run_until, with handlers that schedule
// more, checked against a plain std::set of live (time, priority, seq): every dispatched event
// must be the reference's smallest at that moment.
struct Model {
  using Key = std::tuple<std::int64_t, int, std::uint64_t>;
  EventQueue queue;
  std::mt19937_64 rng;
  std::set<Key> reference;  // live pending events
  std::vector<std::pair<Key, EventQueue::EventId>> issued;
  std::uint64_t dispatched = 0;
  std::uint64_t mismatches = 0;

  explicit Model(std::uint64_t seed) : rng(seed) {}

  std::int64_t delay() {
    switch (rng() % 4) {
      case 0: return 0;                                                // same time
      case 1: return static_cast<std::int64_t>(rng() % 8);             // near
      case 2: return static_cast<std::int64_t>(rng() % 100'000);       // mid
      default: return static_cast<std::int64_t>(rng() % (1ll << 40));  // far
    }
  }
  void add(Time at) {
    const int priority = static_cast<int>(rng() % 5) - 2;
    const auto id = queue.schedule(at, priority, &on_event, this, issued.size());
    const Key key{at.count_ns(), priority, id.seq};
    reference.insert(key);
    issued.emplace_back(key, id);
  }
  static void on_event(void* ctx, std::uint64_t index) {
    auto* self = static_cast<Model*>(ctx);
    const Key key = self->issued[index].first;
    if (self->reference.empty() || *self->reference.begin() != key ||
        std::get<0>(key) != self->queue.now().count_ns()) {
      ++self->mismatches;
    }
    self->reference.erase(key);
    ++self->dispatched;
    if (self->rng() % 3 != 0) self->add(self->queue.now() + Duration::ns(self->delay()));
  }
};

TEST(EventQueue, MatchesAReferenceUnderRandomOperations) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Model m(seed);
    for (int op = 0; op < 20'000; ++op) {
      const auto pick = m.rng() % 10;
      if (pick < 4) {
        m.add(m.queue.now() + Duration::ns(m.delay()));
      } else if (pick < 5 && !m.issued.empty()) {
        const auto& [key, id] = m.issued[m.rng() % m.issued.size()];
        const bool live = m.reference.erase(key) == 1;
        ASSERT_EQ(m.queue.cancel(id), live) << "seed " << seed;
      } else if (pick < 9) {
        const bool any = !m.reference.empty();
        ASSERT_EQ(m.queue.step(), any) << "seed " << seed;
      } else {
        const Time until = m.queue.now() + Duration::ns(m.delay() / 4);
        m.queue.run_until(until);
        ASSERT_EQ(m.queue.now(), until);
        ASSERT_TRUE(m.reference.empty() || std::get<0>(*m.reference.begin()) > until.count_ns()) << "seed " << seed;
      }
      ASSERT_EQ(m.mismatches, 0u) << "seed " << seed << ", operation " << op;
      ASSERT_EQ(m.queue.pending(), m.reference.size()) << "seed " << seed;
    }
    m.queue.run();
    EXPECT_EQ(m.mismatches, 0u) << "seed " << seed;
    EXPECT_TRUE(m.reference.empty());
    EXPECT_EQ(m.queue.dispatched(), m.dispatched);
    EXPECT_GT(m.dispatched, 10'000u);
  }
}

// Handler that schedules `arg` more events, each `arg` ns later, and counts its calls.
struct Chain {
  EventQueue* queue = nullptr;
  std::vector<std::int64_t> times;
  static void on_event(void* ctx, std::uint64_t arg) {
    auto* self = static_cast<Chain*>(ctx);
    self->times.push_back(self->queue->now().count_ns());
    if (arg > 0) {
      self->queue->schedule(self->queue->now() + Duration::ns(static_cast<std::int64_t>(arg)), 0, &on_event, self,
                            arg - 1);
    }
  }
};

TEST(EventQueue, HandlersCanScheduleFurtherEvents) {
  EventQueue q;
  Chain c{&q, {}};
  q.schedule(at_ns(0), 0, &Chain::on_event, &c, 4);
  q.run();
  // 0, then +4, +3, +2, +1.
  EXPECT_EQ(c.times, (std::vector<std::int64_t>{0, 4, 7, 9, 10}));
  EXPECT_EQ(q.now(), at_ns(10));
  EXPECT_EQ(q.dispatched(), 5u);
}

TEST(EventQueue, RunUntilRunsEventsScheduledByHandlersWithinTheLimit) {
  EventQueue q;
  Chain c{&q, {}};
  q.schedule(at_ns(0), 0, &Chain::on_event, &c, 4);
  q.run_until(at_ns(8));
  EXPECT_EQ(c.times, (std::vector<std::int64_t>{0, 4, 7}));
  EXPECT_EQ(q.pending(), 1u);
}

struct Monotone {
  EventQueue* queue = nullptr;
  std::mt19937_64 rng{7};
  std::int64_t last_ns = -1;
  bool went_backwards = false;
  int remaining = 0;
  static void on_event(void* ctx, std::uint64_t) {
    auto* self = static_cast<Monotone*>(ctx);
    const std::int64_t now = self->queue->now().count_ns();
    if (now < self->last_ns) self->went_backwards = true;
    self->last_ns = now;
    if (self->remaining-- > 0) {
      const auto delay = static_cast<std::int64_t>(self->rng() % 1000);
      self->queue->schedule(self->queue->now() + Duration::ns(delay), static_cast<int>(self->rng() % 5) - 2, &on_event,
                            self, 0);
    }
  }
};

TEST(EventQueue, NowAdvancesMonotonically) {
  EventQueue q;
  Monotone m{&q};
  m.remaining = 20'000;
  for (int i = 0; i < 64; ++i) {
    q.schedule(at_ns(static_cast<std::int64_t>(m.rng() % 1000)), 0, &Monotone::on_event, &m, 0);
  }
  Time previous = q.now();
  while (q.step()) {
    ASSERT_GE(q.now(), previous);
    previous = q.now();
  }
  EXPECT_FALSE(m.went_backwards);
  EXPECT_EQ(q.dispatched(), 64u + 20'000u);
}

// A small randomized simulation: handlers schedule and cancel; returns the dispatch trace.
struct Workload {
  EventQueue queue;
  std::mt19937_64 rng;
  std::vector<EventQueue::EventId> ids;
  std::vector<std::tuple<std::int64_t, std::uint64_t>> trace;
  std::uint64_t next_arg = 1'000;
  explicit Workload(std::uint64_t seed) : rng(seed) {}

  static void on_event(void* ctx, std::uint64_t arg) {
    auto* self = static_cast<Workload*>(ctx);
    self->trace.emplace_back(self->queue.now().count_ns(), arg);
    if (self->queue.dispatched() > 5'000) return;
    for (int k = 0; k < 2; ++k) {
      const auto delay = static_cast<std::int64_t>(self->rng() % 50);
      self->ids.push_back(self->queue.schedule(self->queue.now() + Duration::ns(delay),
                                               static_cast<int>(self->rng() % 3), &on_event, self, self->next_arg++));
    }
    if (self->rng() % 4 == 0) self->queue.cancel(self->ids[self->rng() % self->ids.size()]);
  }
};

TEST(EventQueue, IdenticalRunsProduceIdenticalDispatchSequences) {
  auto run_once = [](std::uint64_t seed) {
    Workload w(seed);
    for (std::uint64_t i = 0; i < 16; ++i) w.queue.schedule(at_ns(0), 0, &Workload::on_event, &w, i);
    w.queue.run();
    return w.trace;
  };
  const auto a = run_once(99);
  const auto b = run_once(99);
  ASSERT_GT(a.size(), 5'000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, run_once(100));  // and the trace does depend on the seed
}

TEST(EventQueue, StepReturnsFalseOnEmptyQueue) {
  EventQueue q;
  EXPECT_FALSE(q.step());
  q.run();
  q.run_until(at_ns(5));
  EXPECT_EQ(q.now(), at_ns(5));
  EXPECT_EQ(q.dispatched(), 0u);
}

}  // namespace
}  // namespace moesim::sim
