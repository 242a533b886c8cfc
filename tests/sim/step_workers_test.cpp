#include "sim/step_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/check.h"

namespace moesim::sim {
namespace {

// Work that takes a while and whose result depends on nothing but its input.
std::uint64_t churn(std::uint64_t seed) {
  std::uint64_t x = seed + 1;
  for (int i = 0; i < 20000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

TEST(StepWorkers, EveryJobRunsOnceAndItsResultIsThereWhenWaitedFor) {
  for (const int threads : {1, 2, 4}) {
    StepWorkers workers(threads);
    std::vector<std::uint64_t> out(64, 0);
    std::atomic<int> runs{0};
    std::vector<std::uint64_t> tickets;
    for (std::size_t i = 0; i < out.size(); ++i)
      tickets.push_back(workers.submit([&out, &runs, i] {
        out[i] = churn(i);
        ++runs;
      }));
    EXPECT_EQ(workers.outstanding(), out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(tickets[i], i);
      workers.wait(tickets[i]);
      EXPECT_EQ(out[i], churn(i)) << threads << " threads, job " << i;
    }
    EXPECT_EQ(runs.load(), 64);
    EXPECT_EQ(workers.outstanding(), 0u);
  }
}

TEST(StepWorkers, JobsSubmittedWhileOthersRunAreServedInOrder) {
  StepWorkers workers(2);
  std::vector<std::uint64_t> out(40, 0);
  std::uint64_t next = 0;
  // A window of jobs in flight, as a run keeps the steps it reads ahead of.
  for (std::size_t i = 0; i < out.size(); ++i) {
    workers.submit([&out, i] { out[i] = churn(i); });
    if (i >= 3) workers.wait(next++);
  }
  while (next < out.size()) workers.wait(next++);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], churn(i));
}

TEST(StepWorkers, AJobsExceptionComesOutOfItsWait) {
  StepWorkers workers(2);
  const auto first = workers.submit([] { throw std::runtime_error("the step failed"); });
  const auto second = workers.submit([] {});
  try {
    workers.wait(first);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the step failed");
  }
  EXPECT_NO_THROW(workers.wait(second));
}

TEST(StepWorkers, WaitingOutOfOrderOrWithoutThreadsIsAnInvariantError) {
  EXPECT_THROW(StepWorkers(0), InvariantError);
  StepWorkers workers(2);
  workers.submit([] {});
  const auto second = workers.submit([] {});
  EXPECT_THROW(workers.wait(second), InvariantError);
  workers.wait(0);
  workers.wait(second);
}

}  // namespace
}  // namespace moesim::sim
