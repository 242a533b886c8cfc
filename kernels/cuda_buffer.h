// A grow-only device allocation for the GPU benchmarks: reserve(bytes) reallocates only when a
// shape needs more than the buffer holds, so a capture of many shapes allocates a few times.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda_check.h"

namespace moesim::kernels {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }

  void* reserve(std::size_t bytes) {
    if (bytes > size_) {
      if (ptr_) cuda_check(cudaFree(ptr_), "cudaFree");
      ptr_ = nullptr;
      size_ = 0;
      cuda_check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
      size_ = bytes;
    }
    return ptr_;
  }
  void* get() const { return ptr_; }
  std::size_t size() const { return size_; }

 private:
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace moesim::kernels
