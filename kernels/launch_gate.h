// Keeps host launch time out of GPU timings (kernels/ GPU sources only). A timed repetition is
// enqueued as [gate kernel][start event][work][stop event]: the gate kernel spins on a flag in
// mapped pinned host memory, so the start event cannot fire before the host opens the gate, and
// the host opens it only after it has enqueued the whole repetition. The GPU then runs the work
// back to back, without the gaps of host-side launches (cuBLAS setup, NCCL's group launch over
// several GPUs, MPI skew); all GPUs behind one gate start together. This is the role the short
// spin kernel ahead of the start event plays in nccl-tests and DeepEP's benchmarks, with the
// host deciding when it ends instead of a guessed duration.
//
// A gate that stays closed longer than kGateTimeoutNs (the host stalled: a library call that
// synchronised behind the gate) opens by itself and is counted (timeouts()); the benchmarks
// then report the repetition as an exposed launch and stop gating.
#pragma once

#include <cuda_runtime.h>

namespace moesim::kernels {

// 200 ms: a repetition's host enqueue takes microseconds to a few milliseconds (a kernel launch
// costs a few microseconds, CUDA C++ Best Practices Guide), so only a stall reaches it, and a
// stall then costs a fifth of a second rather than a hung capture.
inline constexpr unsigned long long kGateTimeoutNs = 200'000'000ULL;

class LaunchGate {
 public:
  LaunchGate() = default;
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;
  ~LaunchGate();

  // `gates` closed gates, none timed out. Only while no gate kernel is pending.
  void reset(int gates);
  // Enqueues gate `i`'s kernel on `stream` (of the current device).
  void hold(int i, cudaStream_t stream) const;
  // Opens gate `i` (host side; the GPU sees it within a PCIe round trip).
  void open(int i) const;
  // Gates that opened by timeout; read after every stream holding a gate has synchronised.
  int timeouts() const;

 private:
  int* flags_ = nullptr;  // mapped pinned: [capacity] open flags, then [capacity] timed-out flags
  int capacity_ = 0;
  int gates_ = 0;
};

}  // namespace moesim::kernels
