#include "sim/stream_timeline.h"

#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "sim/lane_max.h"

namespace moesim::sim {
namespace {

TEST(StreamTimeline, ComputeWaitsForItsStreamAndItsInput) {
  StreamTimeline t(2);
  std::vector<double> ready{0, 5}, dur{10, 10}, end(2);
  t.compute(ready, dur, end);
  EXPECT_EQ(end, (std::vector<double>{10, 15}));
  std::vector<double> ready2{0, 0};
  t.compute(ready2, dur, end);  // the stream is busy until 10 / 15
  EXPECT_EQ(end, (std::vector<double>{20, 25}));
  EXPECT_DOUBLE_EQ(t.compute_busy(0), 20);
}

TEST(StreamTimeline, AnUnslowedComputeMayWriteItsEndOverItsInputOrItsDuration) {
  // Seven ranks: the vectorised loop's full lanes and its remainder.
  StreamTimeline t(7);
  std::vector<double> ready{0, 1, 2, 3, 4, 5, 6}, dur{10, 10, 10, 10, 10, 10, 10};
  t.compute(ready, dur, ready);  // end over the input
  EXPECT_EQ(ready, (std::vector<double>{10, 11, 12, 13, 14, 15, 16}));
  std::vector<double> early(7, 0.0), dur2{1, 2, 3, 4, 5, 6, 7};
  t.compute(early, dur2, dur2);  // end over the duration: each starts when its stream is free
  EXPECT_EQ(dur2, (std::vector<double>{11, 13, 15, 17, 19, 21, 23}));
  for (int r = 0; r < 7; ++r) EXPECT_DOUBLE_EQ(t.compute_busy(r), 10 + r + 1) << "rank " << r;
}

// compute_chain places two or three ops exactly as compute() of each in turn does, bit for bit:
// unslowed (one pass), and beside a collective that slows compute (op by op).
TEST(StreamTimeline, AChainIsItsOpsIssuedInTurn) {
  for (const double rate : {1.0, 0.7}) {
    for (const std::size_t length : {2u, 3u}) {
      // Nine ranks: the vectorised loop's full lanes and its remainder.
      StreamTimeline chained(9), single(9);
      chained.set_compute_rate_while_comm(rate);
      single.set_compute_rate_while_comm(rate);
      std::vector<double> ready(9), a(9), b(9), c(9);
      for (std::size_t r = 0; r < 9; ++r) {
        ready[r] = 0.37 * static_cast<double>(r * r % 5);
        a[r] = 1.1 + 0.3 * static_cast<double>(r);
        b[r] = 2.9 - 0.2 * static_cast<double>(r);
        c[r] = 0.13 * static_cast<double>(r % 4);
      }
      for (StreamTimeline* t : {&chained, &single}) {
        std::vector<double> warm(9, 0.5);
        t->compute(ready, warm, warm);  // streams busy until different times
        t->collective(warm, 3.3);       // then a collective in flight
      }
      std::vector<double> end_chained = ready, end_single = ready;
      const StreamTimeline::ChainOp ops[] = {{a, {"a"}}, {b, {"b"}}, {c, {"c"}}};
      chained.compute_chain(end_chained, std::span(ops, length), end_chained);
      for (std::size_t k = 0; k < length; ++k) single.compute(end_single, ops[k].duration, end_single);
      EXPECT_EQ(end_chained, end_single) << "rate " << rate << ", " << length << " ops";
      for (int r = 0; r < 9; ++r) EXPECT_EQ(chained.compute_busy(r), single.compute_busy(r)) << "rank " << r;
      EXPECT_EQ(chained.finish(), single.finish());
    }
  }
}

TEST(LaneMax, IsTheLargestValueWhereverItSits) {
  EXPECT_EQ(max_of(std::vector<double>{}), 0.0);
  EXPECT_EQ(max_of(std::vector<double>{-3, -2}), -2.0);
  for (std::size_t n = 1; n <= 11; ++n)
    for (std::size_t at = 0; at < n; ++at) {
      std::vector<double> v(n, -1.0);
      for (std::size_t i = 0; i < n; ++i) v[i] = -static_cast<double>(i);
      v[at] = 42;
      EXPECT_EQ(max_of(v), 42.0) << n << " values, the largest at " << at;
    }
}

TEST(StreamTimeline, ACollectiveWaitsForTheLatestRankInAnyLane) {
  // Nine ranks: two full lanes of four and a remainder; the latest input in each position.
  for (std::size_t late = 0; late < 9; ++late) {
    StreamTimeline t(9);
    std::vector<double> ready(9, 1.0);
    ready[late] = 5;
    EXPECT_DOUBLE_EQ(t.collective(ready, 2), 7) << "latest rank " << late;
  }
}

TEST(StreamTimeline, CollectiveStartsWhenEveryRankIsReady) {
  StreamTimeline t(3);
  std::vector<double> ready{1, 7, 3};
  EXPECT_DOUBLE_EQ(t.collective(ready, 4), 11);
  // The communication stream is serial: the next collective waits for this one.
  std::vector<double> early{0, 0, 0};
  EXPECT_DOUBLE_EQ(t.collective(early, 2), 13);
  EXPECT_DOUBLE_EQ(t.finish(), 13);
}

TEST(StreamTimeline, CommunicationOverlapsComputeOfAnotherMicroBatch) {
  StreamTimeline t(1);
  std::vector<double> a{0}, b{0}, dur{10};
  t.compute(a, dur, a);                      // A attention: 0-10
  const double a_sent = t.collective(a, 8);  // A dispatch: 10-18
  t.compute(b, dur, b);                      // B attention: 10-20, overlapping A's dispatch
  EXPECT_DOUBLE_EQ(a_sent, 18);
  EXPECT_DOUBLE_EQ(b[0], 20);
  EXPECT_DOUBLE_EQ(t.finish(), 20);
}

TEST(StreamTimeline, RecordsOnlyTheRanksTheTraceWants) {
  TraceOptions o;
  o.max_ranks = 1;
  TraceRecorder rec(o);
  StreamTimeline t(2);
  t.trace_into(&rec, 0, 0, 1000);
  std::vector<double> ready{0, 0}, dur{5, 5}, end(2);
  t.compute(ready, dur, end, {"attention", 3, 0});
  t.collective(end, 2, {"dispatch", 3, 0});
  ASSERT_EQ(rec.events().size(), 2u);
  EXPECT_EQ(rec.events()[0].start_ns, 1000);
  EXPECT_FALSE(rec.events()[0].comm);
  EXPECT_TRUE(rec.events()[1].comm);
  EXPECT_EQ(rec.events()[1].start_ns, 1005);
  EXPECT_EQ(rec.events()[1].layer, 3);
}

// An op whose end overwrites its durations (the shared expert under overlap) is traced with its
// duration, not its end.
TEST(StreamTimeline, TracesTheDurationWhenTheEndOverwritesIt) {
  TraceRecorder rec(TraceOptions{});
  StreamTimeline t(1);
  t.trace_into(&rec, 0, 0, 0);
  std::vector<double> ready{100}, dur{7};
  t.compute(ready, dur, dur, {"shared_expert", 3, 0});
  EXPECT_DOUBLE_EQ(dur[0], 107);
  ASSERT_EQ(rec.events().size(), 1u);
  EXPECT_EQ(rec.events()[0].start_ns, 100);
  EXPECT_EQ(rec.events()[0].duration_ns, 7);
}

}  // namespace
}  // namespace moesim::sim

namespace moesim::sim {
namespace {

// Interference: a compute op issued while a collective is in flight runs at the reduced rate for
// as long as they overlap, and at full rate before and after; without overlap nothing changes.
TEST(StreamTimelineInterference, ComputeSlowsOnlyWhileACollectiveIsInFlight) {
  StreamTimeline t(1);
  t.set_compute_rate_while_comm(0.5);
  std::vector<double> a{0}, b{0}, dur{10};
  t.compute(a, dur, a);  // 0-10, nothing in flight
  EXPECT_DOUBLE_EQ(a[0], 10);
  const double sent = t.collective(a, 8);  // 10-18
  EXPECT_DOUBLE_EQ(sent, 18);
  t.compute(b, dur, b);  // starts at 10: 8 us beside the collective do 4 of work, the other 6 take 6
  EXPECT_DOUBLE_EQ(b[0], 24);
  EXPECT_DOUBLE_EQ(t.compute_busy(0), 24);  // a slowed op keeps the stream busy, it is not exposed
  std::vector<double> c{30};
  t.compute(c, dur, c);  // after the collective: full rate
  EXPECT_DOUBLE_EQ(c[0], 40);
}

TEST(StreamTimelineInterference, AnOpInsideTheCollectiveTakesTheReducedRateThroughout) {
  StreamTimeline t(1);
  t.set_compute_rate_while_comm(0.8);
  std::vector<double> ready{0}, big{100}, small{4};
  t.collective(ready, 100);  // 0-100
  t.compute(ready, small, ready);
  EXPECT_DOUBLE_EQ(ready[0], 5);  // 4 of work at 0.8
}

// A collective whose members' compute streams are still busy progresses at its own reduced rate
// until they are free, then at full rate.
TEST(StreamTimelineInterference, ACollectiveSlowsBesideBusyCompute) {
  StreamTimeline t(2);
  std::vector<double> ready{0, 0}, dur{10, 30}, end(2);
  t.compute(ready, dur, end);  // rank 0 busy to 10, rank 1 to 30
  std::vector<double> go{0, 0};
  // 20 of transfer at half rate while rank 1 computes (0-30: 15 done), the last 5 at full rate.
  EXPECT_DOUBLE_EQ(t.collective(go, 20, {}, 0.5), 35);
  // Beside idle compute streams a collective takes its own duration.
  std::vector<double> later{40, 40};
  EXPECT_DOUBLE_EQ(t.collective(later, 10, {}, 0.5), 50);
}

TEST(StreamTimelineInterference, OpsOnTheirOwnSmsAreNotSlowed) {
  StreamTimeline t(1);
  t.set_compute_rate_while_comm(0.5);
  std::vector<double> ready{0}, dur{10};
  t.collective(ready, 20);
  t.compute(ready, dur, ready, {"expert_gemm", 0, 0, true});
  EXPECT_DOUBLE_EQ(ready[0], 10);
}

}  // namespace
}  // namespace moesim::sim
