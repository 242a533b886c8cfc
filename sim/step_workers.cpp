#include "sim/step_workers.h"

#include <string>

#include "sim/check.h"

namespace moesim::sim {

StepWorkers::StepWorkers(int threads) {
  MOESIM_CHECK(threads >= 1, "step workers: at least one thread expected, got " + std::to_string(threads));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

StepWorkers::~StepWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (auto& t : workers_) t.join();
}

std::uint64_t StepWorkers::submit(std::function<void()> job) {
  std::uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ticket = first_ + jobs_.size();
    jobs_.push_back(Job{std::move(job), State::kQueued, nullptr});
  }
  changed_.notify_all();
  return ticket;
}

void StepWorkers::run(std::size_t index, std::unique_lock<std::mutex>& lock) {
  ++next_queued_;
  jobs_[index].state = State::kRunning;
  // Deque elements stay where they are while others are added or the front is removed, and the
  // front is removed only once done: the job is safe to run unlocked.
  Job& job = jobs_[index];
  lock.unlock();
  std::exception_ptr error;
  try {
    job.fn();
  } catch (...) {
    error = std::current_exception();
  }
  lock.lock();
  job.error = error;
  job.state = State::kDone;
  changed_.notify_all();
}

void StepWorkers::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || next_queued_ < first_ + jobs_.size(); });
    if (stop_) return;
    run(static_cast<std::size_t>(next_queued_ - first_), lock);
  }
}

void StepWorkers::wait(std::uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  MOESIM_CHECK(!jobs_.empty() && ticket == first_, "step workers: jobs waited for out of order");
  for (;;) {
    Job& job = jobs_.front();
    if (job.state == State::kDone) break;
    // The job itself when it has not started (it is the oldest), else the next queued one.
    if (next_queued_ < first_ + jobs_.size()) {
      run(static_cast<std::size_t>(next_queued_ - first_), lock);
      continue;
    }
    changed_.wait(lock);
  }
  std::exception_ptr error = jobs_.front().error;
  jobs_.pop_front();
  ++first_;
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

}  // namespace moesim::sim
