// CUDA events owned by one object (kernels/ GPU sources only): created together on the current
// device, destroyed together by the destructor, so that a benchmark that throws between
// creating and reading them leaks none.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/cuda_check.h"

namespace moesim::kernels {

class CudaEvents {
 public:
  explicit CudaEvents(std::size_t count) : events_(count, nullptr) {
    cuda_check(cudaGetDevice(&device_), "cudaGetDevice");
    for (auto& e : events_) cuda_check(cudaEventCreate(&e), "cudaEventCreate");
  }
  CudaEvents(const CudaEvents&) = delete;
  CudaEvents& operator=(const CudaEvents&) = delete;
  ~CudaEvents() {
    int current = 0;
    const bool switch_device = cudaGetDevice(&current) == cudaSuccess && current != device_;
    if (switch_device) cudaSetDevice(device_);
    for (auto e : events_)
      if (e) cudaEventDestroy(e);
    if (switch_device) cudaSetDevice(current);
  }

  cudaEvent_t operator[](std::size_t i) const { return events_[i]; }
  void record(std::size_t i, cudaStream_t stream) const {
    cuda_check(cudaEventRecord(events_[i], stream), "cudaEventRecord");
  }
  // Nanoseconds from event `start` to event `stop` (both completed).
  double elapsed_ns(std::size_t start, std::size_t stop) const {
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, events_[start], events_[stop]), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e6;
  }

 private:
  int device_ = 0;
  std::vector<cudaEvent_t> events_;
};

}  // namespace moesim::kernels
