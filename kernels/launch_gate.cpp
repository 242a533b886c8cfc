#include "kernels/launch_gate.h"

#include <atomic>
#include <cstring>

#include "kernels/cuda_check.h"
#include "kernels/cuda_fill.h"

namespace moesim::kernels {

LaunchGate::~LaunchGate() {
  if (flags_) cudaFreeHost(flags_);
}

void LaunchGate::reset(int gates) {
  if (gates > capacity_) {
    if (flags_) cuda_check(cudaFreeHost(flags_), "cudaFreeHost");
    flags_ = nullptr;
    capacity_ = 0;
    // Portable: every GPU of the process may hold a gate; mapped: the kernels read it in place
    // (with unified addressing the host pointer is also the device pointer).
    void* p = nullptr;
    cuda_check(cudaHostAlloc(&p, 2 * static_cast<std::size_t>(gates) * sizeof(int),
                             cudaHostAllocMapped | cudaHostAllocPortable),
               "cudaHostAlloc (launch gate)");
    flags_ = static_cast<int*>(p);
    capacity_ = gates;
  }
  gates_ = gates;
  if (flags_) std::memset(flags_, 0, 2 * static_cast<std::size_t>(capacity_) * sizeof(int));
}

void LaunchGate::hold(int i, cudaStream_t stream) const {
  wait_for_gate(flags_ + i, flags_ + capacity_ + i, kGateTimeoutNs, stream);
}

void LaunchGate::open(int i) const { std::atomic_ref<int>(flags_[i]).store(1, std::memory_order_release); }

int LaunchGate::timeouts() const {
  int n = 0;
  for (int i = 0; i < gates_; ++i)
    n += std::atomic_ref<int>(flags_[capacity_ + i]).load(std::memory_order_acquire) != 0;
  return n;
}

}  // namespace moesim::kernels
