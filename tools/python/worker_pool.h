// Runs independent tasks on a few threads for the extension's calls that hold several runs
// (seeds, sweep points). Called with the GIL released; a task that calls into Python takes it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace moesim::python {

// `jobs` threads for `tasks` tasks: at most one per task, one per hardware thread when jobs <= 0.
inline std::size_t worker_count(int jobs, std::size_t tasks) {
  const std::size_t want =
      jobs > 0 ? static_cast<std::size_t>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, std::min(want, tasks));
}

// Calls task(i) for every i in [0, n) on `threads` threads (on the calling thread when one).
// After a task throws no new task starts; the first exception is rethrown once all have stopped.
template <class Task>
void run_tasks(std::size_t n, std::size_t threads, Task task) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next++) < n;) {
      try {
        task(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  };
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace moesim::python
