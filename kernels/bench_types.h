// Shared vocabulary of the measurement kernels (docs/design.md §3, kernels/): element types, how a
// benchmark repeats, the per-repetition timings it returns, the device description it reports,
// and the one error type every backend throws.
//
// kernels/ is backend-neutral at its interface: callers describe shapes and byte counts and get
// back wall times in nanoseconds, one per timed repetition, whether the work ran on a CPU
// (steady_clock) or a GPU (CUDA events). It includes nothing else of ours.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/device_state.h"
#include "models/error.h"

namespace moesim::kernels {

// A benchmark that cannot run: no device, a library call failed, a shape the backend refuses.
// what() is one line.
class KernelError : public models::Error {
 public:
  explicit KernelError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kKernel, what, std::move(position)) {}
};

enum class ElementType { kFp32, kFp16, kBf16, kFp8E4M3 };

std::string_view element_type_name(ElementType t);  // "fp32", "fp16", "bf16", "fp8"
double element_bytes(ElementType t);                // 4, 2, 2, 1

// How the CPU backends time a run. kWall: std::chrono::steady_clock, what a user waits for.
// kThreadCpu: the CPU time of the thread(s) doing the work (CLOCK_THREAD_CPUTIME_ID), which
// leaves out the time other processes hold the core: on a shared, oversubscribed machine it
// measures the kernel rather than the machine's load. GPU backends always use CUDA events.
enum class CpuClock { kWall, kThreadCpu };

struct BenchSettings {
  int warmup = 3;           // untimed runs first (caches, clocks, lazy library initialisation)
  int repetitions = 20;     // timed runs; one timing each
  bool flush_cache = true;  // GPU: overwrite a buffer twice the L2 size before each timed run
  CpuClock clock = CpuClock::kWall;
};

// Now on `clock`, in nanoseconds (an arbitrary origin; only differences mean anything).
double cpu_clock_ns(CpuClock clock);

// Wall time of each timed repetition, nanoseconds, in the order they ran.
using Timings = std::vector<double>;

// What one benchmark run returns.
struct RunResult {
  Timings time;                   // each timed repetition (all-to-all: see the backend for whose time)
  std::vector<Timings> per_rank;  // all-to-all: [rank][repetition], each rank's own time; GEMMs: empty
  int exposed_launches = 0;       // GPU: timed repetitions whose launch gate opened before the host had
                                  // enqueued the work (a timeout: host launch time may be in the time)
  DeviceState state;              // clocks and clocks-event reasons while it ran (unknown on a CPU)
};

// Ordered "key: value" facts about the device and its software (name, SM count, clocks, driver
// and library versions); values a backend cannot know are "n/a".
struct DeviceInfo {
  std::vector<std::pair<std::string, std::string>> fields;

  void add(std::string key, std::string value) { fields.emplace_back(std::move(key), std::move(value)); }
  // The value of `key`, or "n/a".
  std::string get(std::string_view key) const;
};

// Whether this build has the CUDA backends (the toolkit was found at configure time).
bool cuda_backend_built();
// Whether this build has the MPI launcher of the NCCL all-to-all.
bool mpi_backend_built();
// GPUs the CUDA backend can use; 0 with `why_none` set (one line) when there are none or the
// build has no CUDA backend. Never throws: tests use it to decide whether to skip.
int visible_cuda_devices(std::string& why_none);

}  // namespace moesim::kernels
