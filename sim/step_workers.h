// StepWorkers: runs jobs (instances' steps, sim/simulation.cpp) on worker threads, the caller's
// thread helping while it waits (SimulationConfig::threads).
//
// Jobs are handed out in submission order and waited for in submission order (wait() takes the
// oldest job not yet waited for). A job that is still queued when it is waited for runs on the
// waiting thread; one that is running elsewhere has the waiting thread run the next queued job
// meanwhile, so `threads` threads are busy whenever there is work. Jobs must not share mutable
// state: which thread runs a job never changes what it computes. A job's exception is rethrown
// by the wait() for it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace moesim::sim {

class StepWorkers {
 public:
  // `threads` >= 1 threads in all, the caller's included (threads - 1 workers are started).
  explicit StepWorkers(int threads);
  ~StepWorkers();  // waits for the running jobs; queued ones are dropped
  StepWorkers(const StepWorkers&) = delete;
  StepWorkers& operator=(const StepWorkers&) = delete;

  // Queues `job`; returns its ticket (0, 1, 2, ... in submission order).
  std::uint64_t submit(std::function<void()> job);
  // Waits for the oldest job not yet waited for, which must be `ticket`; rethrows its exception.
  void wait(std::uint64_t ticket);
  // Jobs submitted and not yet waited for.
  std::size_t outstanding() const { return jobs_.size(); }

 private:
  enum class State { kQueued, kRunning, kDone };
  struct Job {
    std::function<void()> fn;
    State state = State::kQueued;
    std::exception_ptr error;
  };
  void work();
  // Runs the job at `index` of jobs_ (state kQueued) with `lock` released meanwhile.
  void run(std::size_t index, std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;           // [ticket - first_]: not yet waited for
  std::uint64_t first_ = 0;        // the ticket of jobs_.front()
  std::uint64_t next_queued_ = 0;  // the ticket of the oldest job not started
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace moesim::sim
